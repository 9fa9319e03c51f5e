package wire

import (
	"bufio"
	"errors"
	"io"
)

// ReadMessage reads one newline-terminated message of at most max bytes
// (the newline and a trailing CR are cut off). A longer one is consumed
// to its newline and reported as too large, so the stream stays in step.
func ReadMessage(r *bufio.Reader, max int) (msg []byte, tooLarge bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max+2 { // room for a CR LF
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && !(err == io.EOF) {
				return nil, true, err
			}
			return nil, true, nil
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (err != io.EOF || len(buf) == 0) {
			return nil, false, err
		}
		if msg = trimNL(buf); len(msg) > max {
			return nil, true, nil
		}
		return msg, false, nil
	}
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
