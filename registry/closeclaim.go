package registry

// A lease is closed by one line. The closers decide under s.mu and write
// outside it (the write waits for an fsync, and holding mu across it
// would stop every other call), so each claims the leases it will close
// before letting go of mu and gives the claim back once its line is
// folded or has failed. A lease claimed by another closer is treated as
// closed.

// closable reports whether the lease is open and no other closer has
// claimed it. Call with s.mu held.
func (s *Service) closable(id string) bool {
	l := s.st.Leases[id]
	return l != nil && l.Status == Granted && !s.closing[id]
}

// claimClose marks ids as being closed. Call with s.mu held, after
// closable said yes for each.
func (s *Service) claimClose(ids []string) {
	for _, id := range ids {
		s.closing[id] = true
	}
}

// releaseClose gives the claims back (the close folded, or was never
// written and the lease stays open).
func (s *Service) releaseClose(ids []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.closing, id)
	}
}
