package record

import "time"

// SchemaVersion is the contract version leasedeck writes.
const SchemaVersion = "1.2"

// TimeLayout is the one timestamp form allowed inside signed bytes
// (SPEC §6): UTC, milliseconds, Z.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatTime renders t in TimeLayout, truncating to the millisecond.
func FormatTime(t time.Time) string { return t.UTC().Truncate(time.Millisecond).Format(TimeLayout) }

// ParseTime reads a TimeLayout timestamp (or any RFC 3339 form, for
// evidence records whose schemas allow offsets).
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(TimeLayout, s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}
