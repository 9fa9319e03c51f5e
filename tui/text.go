package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/leasedeck/leasedeck/termtext"
)

// fit cuts s to exactly w cells (ANSI-aware), padding with spaces.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitRight is fit with the text aligned right.
func fitRight(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// wrapItems lays out list items after a prefix, wrapping at width.
func wrapItems(prefix string, items []string, width int, seps ...string) []string {
	sepText := ", "
	if len(seps) > 0 {
		sepText = seps[0]
	}
	var out []string
	cur := prefix
	pw := len([]rune(prefix))
	for i, it := range items {
		it = termtext.Clean(it)
		sep := sepText
		if i == len(items)-1 {
			sep = ""
		}
		piece := it + sep
		if len([]rune(cur))+len([]rune(piece)) > width && len([]rune(cur)) > pw {
			out = append(out, strings.TrimRight(cur, " "))
			cur = strings.Repeat(" ", pw)
		}
		cur += piece
	}
	if len([]rune(cur)) > pw {
		out = append(out, cur)
	}
	return out
}

// wrapWords wraps prose at spaces after a prefix.
func wrapWords(prefix, text string, width int) []string {
	return wrapItems(prefix, strings.Fields(termtext.Clean(text)), width, " ")
}

// figure is an optional record figure for display (0 when absent).
func figure(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}

// fmtNum prints a budget figure compactly: 1234 → 1234, 18300 → 18.3k.
func fmtNum(f float64) string {
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return "?"
	case math.Abs(f) >= 1e6:
		return trimZero(fmt.Sprintf("%.1f", f/1e6)) + "M"
	case math.Abs(f) >= 1e4:
		return trimZero(fmt.Sprintf("%.1f", f/1e3)) + "k"
	case f == math.Trunc(f):
		return strconv.FormatInt(int64(f), 10)
	}
	return trimZero(fmt.Sprintf("%.2f", f))
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func fmtUSD(f float64) string {
	if math.Abs(f) < 1 && f != 0 {
		return fmt.Sprintf("$%.3f", f)
	}
	return fmt.Sprintf("$%.2f", f)
}

// fmtLeft is time left, coarse enough that a row changes at most once a
// second and, for long leases, once a minute.
func fmtLeft(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case d >= time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%ds", int(math.Ceil(d.Seconds())))
}

// ansiWidth is the cells s takes on screen.
func ansiWidth(s string) int { return ansi.StringWidth(s) }

// humanBytes is a size as a person reads it: 812 B, 1.2 KB, 3.4 MB.
func humanBytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1024)) + " KB"
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/(1024*1024))) + " MB"
}

// joinWrapped joins styled items with sep into lines of at most width
// cells, breaking between items (never inside one).
func joinWrapped(items []string, sep string, width int) []string {
	var out []string
	cur := ""
	for _, it := range items {
		switch {
		case cur == "":
			cur = it
		case ansiWidth(cur)+ansiWidth(sep)+ansiWidth(it) > width:
			out = append(out, cur)
			cur = it
		default:
			cur += sep + it
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
