package cron

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Schedule is when a cron spec fires.
type Schedule interface {
	// Next returns the first time after t that the schedule fires, in t's
	// location, or the zero time if it does not fire within five years.
	Next(t time.Time) time.Time
}

// bounds are a field's legal values and the names it accepts.
type bounds struct {
	min, max uint
	names    map[string]uint
}

var (
	minutes = bounds{0, 59, nil}
	hours   = bounds{0, 23, nil}
	dom     = bounds{1, 31, nil}
	months  = bounds{1, 12, map[string]uint{
		"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
		"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
	}}
	dow = bounds{0, 6, map[string]uint{
		"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6,
	}}
)

// starBit marks a field written as an unstepped "*" or "?": it decides how
// day-of-month and day-of-week combine (dayMatches).
const starBit = 1 << 63

// Parse parses a standard five-field spec or a descriptor, with an optional
// "TZ=" or "CRON_TZ=" prefix, as robfig/cron's ParseStandard does, with
// its error messages. A spec without a zone runs in loc; nil is UTC.
func Parse(spec string, loc *time.Location) (Schedule, error) {
	if len(spec) == 0 {
		return nil, fmt.Errorf("empty spec string")
	}
	if loc == nil {
		loc = time.UTC
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		eq := strings.Index(spec, "=")
		i := strings.Index(spec, " ")
		if i < 0 {
			return nil, fmt.Errorf("expected a schedule after %s", spec)
		}
		var err error
		if loc, err = time.LoadLocation(spec[eq+1 : i]); err != nil {
			return nil, fmt.Errorf("provided bad location %s: %v", spec[eq+1:i], err)
		}
		spec = strings.TrimSpace(spec[i:])
	}
	if strings.HasPrefix(spec, "@") {
		return parseDescriptor(spec, loc)
	}
	fields := strings.Fields(spec)
	if len(fields) != 5 {
		return nil, fmt.Errorf("expected exactly 5 fields, found %d: %s", len(fields), fields)
	}
	s := &SpecSchedule{Second: 1, Location: loc}
	var err error
	for i, f := range []struct {
		bits *uint64
		r    bounds
	}{{&s.Minute, minutes}, {&s.Hour, hours}, {&s.Dom, dom}, {&s.Month, months}, {&s.Dow, dow}} {
		if *f.bits, err = field(fields[i], f.r); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// field returns the bits a comma-separated list of ranges sets.
func field(f string, r bounds) (uint64, error) {
	var bits uint64
	for _, expr := range strings.FieldsFunc(f, func(c rune) bool { return c == ',' }) {
		b, err := rangeBits(expr, r)
		if err != nil {
			return 0, err
		}
		bits |= b
	}
	return bits, nil
}

// rangeBits returns the bits of number | number "-" number [ "/" number ],
// or of "*" or "?" with an optional step.
func rangeBits(expr string, r bounds) (uint64, error) {
	var (
		start, end, step uint
		rangeAndStep     = strings.Split(expr, "/")
		lowAndHigh       = strings.Split(rangeAndStep[0], "-")
		single           = len(lowAndHigh) == 1
		extra            uint64
		err              error
	)
	if lowAndHigh[0] == "*" || lowAndHigh[0] == "?" {
		start, end, extra = r.min, r.max, starBit
	} else {
		if start, err = intOrName(lowAndHigh[0], r.names); err != nil {
			return 0, err
		}
		switch len(lowAndHigh) {
		case 1:
			end = start
		case 2:
			if end, err = intOrName(lowAndHigh[1], r.names); err != nil {
				return 0, err
			}
		default:
			return 0, fmt.Errorf("too many hyphens: %s", expr)
		}
	}
	switch len(rangeAndStep) {
	case 1:
		step = 1
	case 2:
		if step, err = parseUint(rangeAndStep[1]); err != nil {
			return 0, err
		}
		if single {
			end = r.max
		}
		if step > 1 {
			extra = 0
		}
	default:
		return 0, fmt.Errorf("too many slashes: %s", expr)
	}
	switch {
	case start < r.min:
		return 0, fmt.Errorf("beginning of range (%d) below minimum (%d): %s", start, r.min, expr)
	case end > r.max:
		return 0, fmt.Errorf("end of range (%d) above maximum (%d): %s", end, r.max, expr)
	case start > end:
		return 0, fmt.Errorf("beginning of range (%d) beyond end of range (%d): %s", start, end, expr)
	case step == 0:
		return 0, fmt.Errorf("step of range should be a positive number: %s", expr)
	}
	return bitsOf(start, end, step) | extra, nil
}

func intOrName(expr string, names map[string]uint) (uint, error) {
	if n, ok := names[strings.ToLower(expr)]; ok {
		return n, nil
	}
	return parseUint(expr)
}

func parseUint(expr string) (uint, error) {
	n, err := strconv.Atoi(expr)
	if err != nil {
		return 0, fmt.Errorf("failed to parse int from %s: %s", expr, err)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative number (%d) not allowed: %s", n, expr)
	}
	return uint(n), nil
}

// bitsOf sets the bits min, min+step, ... up to max.
func bitsOf(min, max, step uint) uint64 {
	if step == 1 {
		return ^(math.MaxUint64 << (max + 1)) & (math.MaxUint64 << min)
	}
	var bits uint64
	for i := min; i <= max; i += step {
		bits |= 1 << i
	}
	return bits
}

func all(r bounds) uint64 { return bitsOf(r.min, r.max, 1) | starBit }

func parseDescriptor(d string, loc *time.Location) (Schedule, error) {
	s := &SpecSchedule{Second: 1, Minute: 1, Hour: 1, Dom: all(dom), Month: all(months), Dow: all(dow), Location: loc}
	switch d {
	case "@yearly", "@annually":
		s.Dom, s.Month = 1<<dom.min, 1<<months.min
	case "@monthly":
		s.Dom = 1 << dom.min
	case "@weekly":
		s.Dow = 1 << dow.min
	case "@daily", "@midnight":
	case "@hourly":
		s.Hour = all(hours)
	default:
		const every = "@every "
		if !strings.HasPrefix(d, every) {
			return nil, fmt.Errorf("unrecognized descriptor: %s", d)
		}
		dur, err := time.ParseDuration(d[len(every):])
		if err != nil {
			return nil, fmt.Errorf("failed to parse duration %s: %s", d, err)
		}
		return Every(dur), nil
	}
	return s, nil
}
