package tui

import (
	"math"
	"strings"
)

// gauge draws a bar of width cells, frac full, in eighths of a cell.
func gauge(width int, frac float64) string {
	if width <= 0 {
		return ""
	}
	if math.IsNaN(frac) || frac < 0 {
		frac = 0
	}
	if frac > 1 {
		frac = 1
	}
	eighths := int(math.Round(frac * float64(width*8)))
	full, part := eighths/8, eighths%8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	if part > 0 {
		b.WriteRune([]rune("▏▎▍▌▋▊▉")[part-1])
		full++
	}
	b.WriteString(strings.Repeat("░", width-full))
	return b.String()
}

// renderGauge is Gauge with the theme's bar styles; over 90% it warns.
func renderGauge(t *theme, width int, used, total float64) string {
	if total <= 0 {
		return t.BarEmpty.Render(strings.Repeat("░", max(width, 0)))
	}
	g := gauge(width, used/total)
	i := strings.IndexRune(g, '░')
	if i < 0 {
		i = len(g)
	}
	full := t.BarFull
	if used/total >= 0.9 {
		full = t.Warn
	}
	return full.Render(g[:i]) + t.BarEmpty.Render(g[i:])
}

// sparkline draws values as block heights scaled to the largest.
func sparkline(vals []float64) string {
	blocks := []rune("▁▂▃▄▅▆▇█")
	var top float64
	for _, v := range vals {
		top = max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		switch {
		case v <= 0 || top <= 0:
			b.WriteRune(' ')
		default:
			i := int(math.Ceil(v/top*8)) - 1
			b.WriteRune(blocks[min(max(i, 0), 7)])
		}
	}
	return b.String()
}
