package cron

import "time"

// SpecSchedule fires at the times its fields' bits allow: bit n of Minute
// set means minute n matches. Second is always bit 0 here (the standard
// grammar has no seconds field). Location is the zone the fields are read
// in.
type SpecSchedule struct {
	Second, Minute, Hour, Dom, Month, Dow uint64
	Location                              *time.Location
}

// Next returns the first time after t the schedule matches, in t's
// location, or the zero time if none within five years. It walks from the
// next whole second, field by field from the month down, resetting the
// smaller fields when it moves a larger one and starting again when one
// wraps. Across a DST change it follows robfig/cron: a day that starts at
// 01:00 or 23:00 is put back to midnight, a time that does not exist is
// skipped and a time that happens twice fires twice.
func (s *SpecSchedule) Next(t time.Time) time.Time {
	orig := t.Location()
	loc := s.Location
	if loc == nil {
		loc = time.UTC
	}
	t = t.In(loc)
	t = t.Add(time.Second - time.Duration(t.Nanosecond()))
	added := false
	yearLimit := t.Year() + 5

wrap:
	if t.Year() > yearLimit {
		return time.Time{}
	}
	for 1<<uint(t.Month())&s.Month == 0 {
		if !added {
			added = true
			t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, loc)
		}
		t = t.AddDate(0, 1, 0)
		if t.Month() == time.January {
			goto wrap
		}
	}
	for !s.dayMatches(t) {
		if !added {
			added = true
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		}
		t = t.AddDate(0, 0, 1)
		// Where DST moved midnight, put the day back at its start.
		if h := t.Hour(); h != 0 {
			if h > 12 {
				t = t.Add(time.Duration(24-h) * time.Hour)
			} else {
				t = t.Add(time.Duration(-h) * time.Hour)
			}
		}
		if t.Day() == 1 {
			goto wrap
		}
	}
	for 1<<uint(t.Hour())&s.Hour == 0 {
		if !added {
			added = true
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), 0, 0, 0, loc)
		}
		t = t.Add(time.Hour)
		if t.Hour() == 0 {
			goto wrap
		}
	}
	for 1<<uint(t.Minute())&s.Minute == 0 {
		if !added {
			added = true
			t = t.Truncate(time.Minute)
		}
		t = t.Add(time.Minute)
		if t.Minute() == 0 {
			goto wrap
		}
	}
	for 1<<uint(t.Second())&s.Second == 0 {
		if !added {
			added = true
			t = t.Truncate(time.Second)
		}
		t = t.Add(time.Second)
		if t.Second() == 0 {
			goto wrap
		}
	}
	return t.In(orig)
}

// dayMatches is Vixie cron's rule: if either day field is a "*", both must
// match; if both are restricted, either may.
func (s *SpecSchedule) dayMatches(t time.Time) bool {
	domMatch := 1<<uint(t.Day())&s.Dom > 0
	dowMatch := 1<<uint(t.Weekday())&s.Dow > 0
	if s.Dom&starBit > 0 || s.Dow&starBit > 0 {
		return domMatch && dowMatch
	}
	return domMatch || dowMatch
}

// ConstantDelaySchedule fires every Delay, counted from the time given to
// Next; "@every" makes one.
type ConstantDelaySchedule struct {
	Delay time.Duration
}

// Every returns a schedule firing every d, rounded down to whole seconds
// and at least one second.
func Every(d time.Duration) ConstantDelaySchedule {
	if d < time.Second {
		d = time.Second
	}
	return ConstantDelaySchedule{Delay: d - d%time.Second}
}

// Next returns t plus the delay, on a whole second.
func (s ConstantDelaySchedule) Next(t time.Time) time.Time {
	return t.Add(s.Delay - time.Duration(t.Nanosecond()))
}
