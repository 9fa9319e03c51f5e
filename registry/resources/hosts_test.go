package resources

import "testing"

func TestHostOf(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{in: "https://API.Example.com:443/x", want: "api.example.com"},
		{in: "http://example.com./", want: "example.com"},
		{in: "api.example.com", want: "api.example.com"},
		{in: "API.example.com:8443", want: "api.example.com"},
		{in: "example.com.", want: "example.com"},
		{in: "http://evil.com@good.com/", want: "good.com"},
		{in: "http://user:pass@good.com:80/p?q#f", want: "good.com"},
		{in: "http://good.com#@evil.com", want: "good.com"},
		{in: "http://good.com.evil.com/", want: "good.com.evil.com"},
		{in: "http://[::1]:8080/", want: "::1"},
		{in: "[2001:DB8::1]", want: "2001:db8::1"},
		{in: "[::1]:443", want: "::1"},
		{in: "::1", want: "::1"},
		{in: "http://[::ffff:127.0.0.1]/", want: "127.0.0.1"},
		{in: "http://127.0.0.1:11434/v1", want: "127.0.0.1"},
		{in: "http://127.1/", want: "127.0.0.1"},
		{in: "http://0x7f.0.0.1/", want: "127.0.0.1"},
		{in: "http://2130706433/", want: "127.0.0.1"},
		{in: "http://0177.0.0.1/", want: "127.0.0.1"},
		{in: "localhost", want: "localhost"},
		{in: "my_host.internal", want: "my_host.internal"},
		{in: "", err: true},
		{in: "http://", err: true},
		{in: "file:///etc/passwd", err: true},
		{in: "http://good.com\\@evil.com/", err: true},
		{in: "exa mple.com", err: true},
		{in: "example..com", err: true},
		{in: "example.com..", err: true},
		{in: "user@example.com", err: true},
		{in: "example.com/path", err: true},
		{in: "example.com:http", err: true},
		{in: "http://ехаmple.com/", err: true},
		{in: "http://[fe80::1%25eth0]/", err: true},
		{in: "http://256.1.1.1/", err: true},
		{in: "http://1.2.3.4.5/", err: true},
		{in: "http://*.example.com/", err: true},
		{in: "mailto:a@example.com", err: true},
	} {
		got, err := HostOf(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("HostOf(%q) = %q, want error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("HostOf(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestHostContains(t *testing.T) {
	for _, tc := range []struct {
		pattern, host string
		want          bool
	}{
		{"*", "anything.example", true},
		{"*", "127.0.0.1", true},
		{"*.example.com", "api.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
		{"*.example.com", "example.com.evil.com", false},
		{"example.com", "example.com", true},
		{"example.com", "EXAMPLE.com", true},
		{"example.com", "api.example.com", false},
		{"api.*.com", "api.x.com", false},
		{"*.*.com", "a.b.com", false},
		{"", "example.com", false},
		{"example.com", "", false},
		{"*.", "a.", false},
	} {
		if got := HostContains(tc.pattern, tc.host); got != tc.want {
			t.Errorf("HostContains(%q, %q) = %v, want %v", tc.pattern, tc.host, got, tc.want)
		}
	}
}

func TestHostPatternContains(t *testing.T) {
	for _, tc := range []struct {
		parent, child string
		want          bool
	}{
		{"*", "*", true},
		{"*", "*.example.com", true},
		{"*", "example.com", true},
		{"*.example.com", "api.example.com", true},
		{"*.example.com", "*.api.example.com", true},
		{"*.example.com", "*.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "*", false},
		{"*.example.com", "*.com", false},
		{"*.example.com", "*.badexample.com", false},
		{"example.com", "example.com", true},
		{"example.com", "api.example.com", false},
		{"example.com", "*.example.com", false},
		{"api.example.com", "*", false},
	} {
		if got := HostPatternContains(tc.parent, tc.child); got != tc.want {
			t.Errorf("HostPatternContains(%q, %q) = %v, want %v", tc.parent, tc.child, got, tc.want)
		}
	}
}
