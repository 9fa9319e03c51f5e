package resources

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// HostOf returns the host a URL or a bare host name designates, in the form
// SPEC §4.4 compares hosts: lower case, without port, without one trailing
// dot, IPv6 literals without brackets.
//
// For a URL ("scheme://…") the host is the one a client connects to:
// "http://evil.com@good.com/" is good.com (evil.com is userinfo), and
// "http://good.com.evil.com/" is good.com.evil.com. A bare host may carry a
// port ("api.example.com:443", "[::1]:8080").
//
// Numeric IPv4 spellings that clients accept are normalised to dotted quads
// (127.1, 0x7f.0.0.1, 2130706433 → 127.0.0.1), and an IPv4-mapped IPv6
// address to its IPv4 form, so that a deny entry cannot be side-stepped by
// spelling. HostOf refuses what it cannot normalise: whitespace, backslashes,
// non-ASCII (give internationalised names in punycode), IPv6 zones, and
// anything that is not a valid DNS name or IP address.
func HostOf(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty host")
	}
	if strings.ContainsAny(s, " \t\r\n\v\f\x00\\") {
		return "", fmt.Errorf("host %q contains whitespace or a backslash", s)
	}
	var host string
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil {
			return "", fmt.Errorf("cannot parse URL: %w", err)
		}
		if u.Scheme == "" || u.Opaque != "" || u.Host == "" {
			return "", fmt.Errorf("URL %q names no host", s)
		}
		if p := u.Port(); p != "" && !isDigits(p) {
			return "", fmt.Errorf("URL %q has an invalid port", s)
		}
		host = u.Hostname()
	} else {
		if strings.ContainsAny(s, "/?#@") {
			return "", fmt.Errorf("%q is neither a URL nor a host", s)
		}
		host = s
		switch {
		case strings.HasPrefix(host, "["):
			if h, port, err := net.SplitHostPort(host); err == nil {
				if !isDigits(port) {
					return "", fmt.Errorf("host %q has an invalid port", s)
				}
				host = h
			} else if strings.HasSuffix(host, "]") {
				host = host[1 : len(host)-1]
			} else {
				return "", fmt.Errorf("invalid host %q", s)
			}
		case strings.Count(host, ":") == 1:
			h, port, err := net.SplitHostPort(host)
			if err != nil || !isDigits(port) {
				return "", fmt.Errorf("host %q has an invalid port", s)
			}
			host = h
		}
	}
	return normalizeHost(host)
}

func normalizeHost(h string) (string, error) {
	if h == "" {
		return "", errors.New("empty host")
	}
	if strings.Contains(h, ":") {
		addr, err := netip.ParseAddr(h)
		if err != nil || addr.Zone() != "" || !addr.Is6() {
			return "", fmt.Errorf("invalid IPv6 address %q", h)
		}
		return addr.Unmap().String(), nil
	}
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			return "", fmt.Errorf("host %q is not ASCII; give it in punycode", h)
		}
	}
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	if h == "" || len(h) > 253 {
		return "", fmt.Errorf("invalid host length")
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", fmt.Errorf("invalid host %q: empty or over-long label", h)
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("invalid host %q: character %q", h, c)
			}
		}
	}
	// A name whose last label is numeric is an IPv4 address to a URL
	// parser (WHATWG), in any of its historical spellings.
	if last := labels[len(labels)-1]; isDigits(last) || strings.HasPrefix(last, "0x") {
		ip, ok := parseIPv4(labels)
		if !ok {
			return "", fmt.Errorf("invalid IPv4 address %q", h)
		}
		return ip, nil
	}
	return h, nil
}

// parseIPv4 parses one to four numeric parts (decimal, 0x hex or 0-prefixed
// octal) the way inet_aton and the WHATWG URL parser do.
func parseIPv4(parts []string) (string, bool) {
	if len(parts) > 4 {
		return "", false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			p, base = p[2:], 16
			if p == "" {
				p = "0"
			}
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		n, err := strconv.ParseUint(p, base, 64)
		if err != nil || n > 0xffffffff {
			return "", false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", false
	}
	v |= last
	return fmt.Sprintf("%d.%d.%d.%d", v>>24, v>>16&0xff, v>>8&0xff, v&0xff), true
}

// HostContains reports whether the host entry pattern (SPEC §4.4) contains
// host: "*" contains every host, "*.example.com" contains api.example.com
// and a.b.example.com but not example.com, and any other entry contains
// only the identical host. Comparison is case-insensitive; a wildcard
// anywhere but a single leading "*." label contains nothing.
func HostContains(pattern, host string) bool {
	pattern = strings.ToLower(pattern)
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if pattern == "" || host == "" || strings.Contains(host, "*") {
		return false
	}
	if pattern == "*" {
		return true
	}
	if strings.HasPrefix(pattern, "*.") {
		suffix := pattern[1:] // ".example.com"
		if strings.Contains(suffix, "*") || len(suffix) < 2 {
			return false
		}
		return len(host) > len(suffix) && strings.HasSuffix(host, suffix)
	}
	if strings.Contains(pattern, "*") {
		return false
	}
	return pattern == host
}

// HostPatternContains reports whether the host entry parent contains the host
// entry child, for narrowing (SPEC §5.1): "*" contains every entry,
// "*.example.com" contains api.example.com, *.api.example.com and itself,
// and any entry contains the identical entry. Everything else is not
// contained.
func HostPatternContains(parent, child string) bool {
	parent, child = strings.ToLower(parent), strings.ToLower(child)
	if parent == "" || child == "" {
		return false
	}
	if parent == child || parent == "*" {
		return true
	}
	if !strings.HasPrefix(parent, "*.") {
		return false
	}
	if strings.HasPrefix(child, "*.") {
		suffix := parent[1:]
		rest := child[1:]
		return !strings.Contains(rest, "*") && !strings.Contains(suffix, "*") &&
			len(rest) > len(suffix) && strings.HasSuffix(rest, suffix)
	}
	return HostContains(parent, child)
}
