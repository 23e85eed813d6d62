package cron

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		spec, err string
	}{
		{"", "empty spec string"},
		{"* * * *", "expected exactly 5 fields, found 4: [* * * *]"},
		{"* * * * * *", "expected exactly 5 fields, found 6: [* * * * * *]"},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"* 24 * * *", "end of range (24) above maximum (23): 24"},
		{"* * 0 * *", "beginning of range (0) below minimum (1): 0"},
		{"* * 32 * *", "end of range (32) above maximum (31): 32"},
		{"* * * 13 *", "end of range (13) above maximum (12): 13"},
		{"* * * 0 *", "beginning of range (0) below minimum (1): 0"},
		{"* * * * 7", "end of range (7) above maximum (6): 7"},
		{"5-3 * * * *", "beginning of range (5) beyond end of range (3): 5-3"},
		{"1-2-3 * * * *", "too many hyphens: 1-2-3"},
		{"*/2/3 * * * *", "too many slashes: */2/3"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"a * * * *", `failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax`},
		{"* * * * MONDAY", `failed to parse int from MONDAY: strconv.Atoi: parsing "MONDAY": invalid syntax`},
		{"* * * JAN-XYZ *", `failed to parse int from XYZ: strconv.Atoi: parsing "XYZ": invalid syntax`},
		{"-1 * * * *", `failed to parse int from : strconv.Atoi: parsing "": invalid syntax`},
		{"*/-1 * * * *", "negative number (-1) not allowed: -1"},
		{"@reboot", "unrecognized descriptor: @reboot"},
		{"@every", "unrecognized descriptor: @every"},
		{"@every 5", "failed to parse duration @every 5: time: missing unit in duration \"5\""},
		{"TZ=Mars/Olympus * * * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"},
		{"TZ=UTC", "expected a schedule after TZ=UTC"},
		{"TZ=UTC * * *", "expected exactly 5 fields, found 3: [* * *]"},
		{" @daily", "expected exactly 5 fields, found 1: [@daily]"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := Parse(tt.spec, nil)
			require.Error(t, err)
			assert.Equal(t, tt.err, err.Error())
		})
	}
}

// TestParse checks the bits each form sets (robfig/cron's parser_test
// TestRange, TestField, TestAll and TestStandardSpecSchedule).
func TestParse(t *testing.T) {
	allOf := func(r bounds) uint64 { return all(r) }
	tests := []struct {
		spec string
		want SpecSchedule
	}{
		{"5 * * * *", SpecSchedule{1, 1 << 5, allOf(hours), allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"? ? ? ? ?", SpecSchedule{1, allOf(minutes), allOf(hours), allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"*/1 * * * *", SpecSchedule{1, allOf(minutes), allOf(hours), allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"*/30 */12 * * *", SpecSchedule{1, 1 | 1<<30, 1 | 1<<12, allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"1-10/4 5/10 * * *", SpecSchedule{1, 1<<1 | 1<<5 | 1<<9, 1<<5 | 1<<15, allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"0,30 1,2-3 1 JAN,mar-May MON-fri", SpecSchedule{1, 1 | 1<<30, 1<<1 | 1<<2 | 1<<3, 1 << 1, 1<<1 | 1<<3 | 1<<4 | 1<<5, 0b111110, time.UTC}},
		{"0 0 * * SUN", SpecSchedule{1, 1, 1, allOf(dom), allOf(months), 1, time.UTC}},
		{"*-5 * * * *", SpecSchedule{1, allOf(minutes), allOf(hours), allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"1,* * * * *", SpecSchedule{1, allOf(minutes), allOf(hours), allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"0 0 1,15 * *", SpecSchedule{1, 1, 1, 1<<1 | 1<<15, allOf(months), allOf(dow), time.UTC}},
		{"@yearly", SpecSchedule{1, 1, 1, 1 << 1, 1 << 1, allOf(dow), time.UTC}},
		{"@annually", SpecSchedule{1, 1, 1, 1 << 1, 1 << 1, allOf(dow), time.UTC}},
		{"@monthly", SpecSchedule{1, 1, 1, 1 << 1, allOf(months), allOf(dow), time.UTC}},
		{"@weekly", SpecSchedule{1, 1, 1, allOf(dom), allOf(months), 1, time.UTC}},
		{"@daily", SpecSchedule{1, 1, 1, allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"@midnight", SpecSchedule{1, 1, 1, allOf(dom), allOf(months), allOf(dow), time.UTC}},
		{"@hourly", SpecSchedule{1, 1, allOf(hours), allOf(dom), allOf(months), allOf(dow), time.UTC}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := Parse(tt.spec, nil)
			require.NoError(t, err)
			assert.Equal(t, &tt.want, s)
		})
	}
}

func TestParseZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	for _, tt := range []struct {
		spec string
		loc  *time.Location
		want *time.Location
	}{
		{"* * * * *", nil, time.UTC},
		{"* * * * *", tokyo, tokyo},
		{"TZ=America/New_York * * * * *", tokyo, ny},
		{"CRON_TZ=America/New_York  @daily", nil, ny},
	} {
		s, err := Parse(tt.spec, tt.loc)
		require.NoError(t, err)
		assert.Equal(t, tt.want.String(), s.(*SpecSchedule).Location.String(), tt.spec)
	}
}

func TestEvery(t *testing.T) {
	for _, tt := range []struct {
		spec string
		want time.Duration
	}{
		{"@every 5m", 5 * time.Minute},
		{"@every 1h30m10s", time.Hour + 30*time.Minute + 10*time.Second},
		{"@every 1500ms", time.Second},
		{"@every 10ms", time.Second},
		{"@every -1h", time.Second},
	} {
		s, err := Parse(tt.spec, nil)
		require.NoError(t, err)
		assert.Equal(t, ConstantDelaySchedule{tt.want}, s, tt.spec)
	}
	s := Every(5 * time.Minute)
	from := time.Date(2012, 7, 9, 14, 45, 0, 500, time.UTC)
	assert.Equal(t, time.Date(2012, 7, 9, 14, 50, 0, 0, time.UTC), s.Next(from))
}

// TestNext ports robfig/cron's spec_test TestNext scenarios to five
// fields: wraps of every field, the day-of-month/day-of-week rule, leap
// years, zones and DST, and schedules that never fire.
func TestNext(t *testing.T) {
	tests := []struct {
		name, from, spec, want string
	}{
		{"simple", "Mon Jul 9 14:45 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"},
		{"simple from the minute before", "Mon Jul 9 14:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"},
		{"simple from a second before", "Mon Jul 9 14:59:59 2012", "0/15 * * * *", "Mon Jul 9 15:00 2012"},
		{"on the time, the next one", "Mon Jul 9 15:00 2012", "0/15 * * * *", "Mon Jul 9 15:15 2012"},
		{"every 5 minutes", "Mon Jul 9 14:01:30 2012", "*/5 * * * *", "Mon Jul 9 14:05 2012"},
		{"wrap around hours", "Mon Jul 9 15:45 2012", "20-35/15 * * * *", "Mon Jul 9 16:20 2012"},
		{"wrap around days", "Mon Jul 9 23:46 2012", "*/15 * * * *", "Tue Jul 10 00:00 2012"},
		{"wrap around days, range", "Mon Jul 9 23:45 2012", "20-35/15 * * * *", "Tue Jul 10 00:20 2012"},
		{"wrap around days, hours", "Mon Jul 9 23:35 2012", "20-35/15 10-12 * * *", "Tue Jul 10 10:20 2012"},
		{"wrap around days, hour steps", "Mon Jul 9 23:35 2012", "20-35/15 1/2 */2 * *", "Thu Jul 11 01:20 2012"},
		{"wrap around months", "Mon Jul 9 23:35 2012", "0 0 9 Apr-Oct ?", "Thu Aug 9 00:00 2012"},
		{"wrap around months, either day", "Mon Jul 9 23:35 2012", "0 0 */5 Apr,Aug,Oct Mon", "Wed Aug 1 00:00 2012"},
		{"wrap around months, monday", "Mon Jul 9 23:35 2012", "0 0 */5 Aug,Oct Mon", "Wed Aug 1 00:00 2012"},
		{"wrap around months, october", "Mon Jul 9 23:35 2012", "0 0 */5 Oct Mon", "Mon Oct 1 00:00 2012"},
		{"wrap around years", "Mon Jul 9 23:35 2012", "0 0 * Feb Mon", "Mon Feb 4 00:00 2013"},
		{"wrap around years, weekday steps", "Mon Jul 9 23:35 2012", "0 0 * Feb Mon/2", "Fri Feb 1 00:00 2013"},
		{"wrap every field", "Mon Dec 31 23:59:45 2012", "* * * * *", "Tue Jan 1 00:00 2013"},
		{"leap year", "Mon Jul 9 23:35 2012", "0 0 29 Feb ?", "Mon Feb 29 00:00 2016"},
		{"both days restricted: either", "Mon Jul 9 00:00 2012", "0 0 15 * Fri", "Fri Jul 13 00:00 2012"},
		{"both days restricted: the date first", "Fri Jul 13 00:00 2012", "0 0 15 * Fri", "Sun Jul 15 00:00 2012"},
		{"weekday star: the date only", "Mon Jul 9 00:00 2012", "0 0 15 * *", "Sun Jul 15 00:00 2012"},
		{"date star: the weekday only", "Mon Jul 9 00:00 2012", "0 0 * * Fri", "Fri Jul 13 00:00 2012"},
		{"question mark is a star", "Mon Jul 9 00:00 2012", "0 0 ? * Fri", "Fri Jul 13 00:00 2012"},
		{"weekdays", "Fri Jul 13 09:00 2012", "0 9 * * MON-FRI", "Mon Jul 16 09:00 2012"},
		{"yearly", "Mon Jul 9 23:35 2012", "@yearly", "Tue Jan 1 00:00 2013"},
		{"monthly", "Mon Jul 9 23:35 2012", "@monthly", "Wed Aug 1 00:00 2012"},
		{"weekly", "Mon Jul 9 23:35 2012", "@weekly", "Sun Jul 15 00:00 2012"},
		{"daily", "Mon Jul 9 23:35 2012", "@daily", "Tue Jul 10 00:00 2012"},
		{"hourly", "Mon Jul 9 23:35 2012", "@hourly", "Tue Jul 10 00:00 2012"},
		{"unsatisfiable: February 30", "Mon Jul 9 23:35 2012", "0 0 30 Feb ?", ""},
		{"unsatisfiable: April 31", "Mon Jul 9 23:35 2012", "0 0 31 Apr ?", ""},
		{"upstream's invalid schedule", "Mon Jul 9 23:35 2012", "59 23 31 2 *", ""},
		{"zone of the spec", "2012-07-09T23:35:00Z", "TZ=America/New_York 0 9 * * *", "2012-07-10T09:00:00-04:00"},
		{"zone of the spec, answer in the caller's", "2012-07-09T23:35:00+09:00", "TZ=America/New_York 0 9 * * *", "2012-07-10T22:00:00+09:00"},
		{"DST spring: 2am does not exist", "2012-03-11T00:00:00-05:00", "TZ=America/New_York 0 2 * * ?", "2012-03-12T02:00:00-04:00"},
		{"DST spring: 3am", "2012-03-11T00:00:00-05:00", "TZ=America/New_York 0 3 * * ?", "2012-03-11T03:00:00-04:00"},
		{"DST spring: hourly", "2012-03-11T00:00:00-05:00", "TZ=America/New_York 0 * * * ?", "2012-03-11T01:00:00-05:00"},
		{"DST spring: hourly skips 2am", "2012-03-11T01:00:00-05:00", "TZ=America/New_York 0 * * * ?", "2012-03-11T03:00:00-04:00"},
		{"DST spring: hourly after", "2012-03-11T03:00:00-04:00", "TZ=America/New_York 0 * * * ?", "2012-03-11T04:00:00-04:00"},
		{"DST spring: daily at 1am", "2012-03-11T00:00:00-05:00", "TZ=America/New_York 0 1 * * ?", "2012-03-11T01:00:00-05:00"},
		{"DST spring: daily at 1am, next day", "2012-03-11T01:00:00-05:00", "TZ=America/New_York 0 1 * * ?", "2012-03-12T01:00:00-04:00"},
		{"DST fall: 2am", "2012-11-04T00:00:00-04:00", "TZ=America/New_York 0 2 * * ?", "2012-11-04T02:00:00-05:00"},
		{"DST fall: 1am happens twice", "2012-11-04T01:45:00-04:00", "TZ=America/New_York 0 1 * * ?", "2012-11-04T01:00:00-05:00"},
		{"DST fall: hourly through the repeat", "2012-11-04T01:00:00-04:00", "TZ=America/New_York 0 * * * ?", "2012-11-04T01:00:00-05:00"},
		{"DST fall: monthly", "2012-11-04T00:00:00-04:00", "TZ=America/New_York 0 3 3 * ?", "2012-12-03T03:00:00-05:00"},
		{"midnight that does not exist", "2018-10-17T05:00:00-03:00", "TZ=America/Sao_Paulo 0 9 10 * ?", "2018-11-10T09:00:00-02:00"},
		// Walking hours from noon, 00:00 on the 4th never comes (it is 01:00):
		// robfig/cron skips the day.
		{"midnight that does not exist, daily", "2018-11-03T12:00:00-03:00", "TZ=America/Sao_Paulo 0 0 * * ?", "2018-11-05T00:00:00-02:00"},
		// Walking days, robfig/cron puts 01:00 on the 4th back an hour, to
		// 23:00 on the 3rd, and so misses the 4th that month.
		{"midnight that does not exist, from the day before", "2018-11-02T12:00:00-03:00", "TZ=America/Sao_Paulo 0 0 4 * ?", "2018-12-04T00:00:00-02:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.spec, nil)
			require.NoError(t, err)
			got := s.Next(parseTime(t, tt.from))
			if tt.want == "" {
				assert.True(t, got.IsZero(), "got %v", got)
				return
			}
			want := parseTime(t, tt.want)
			assert.True(t, want.Equal(got), "want %v, got %v", want, got)
		})
	}
}

// TestActivation ports robfig/cron's TestActivation: whether a schedule
// fires at exactly a given time.
func TestActivation(t *testing.T) {
	tests := []struct {
		time, spec string
		want       bool
	}{
		{"Mon Jul 9 15:00 2012", "0/15 * * * *", true},
		{"Mon Jul 9 15:45 2012", "0/15 * * * *", true},
		{"Mon Jul 9 15:40 2012", "0/15 * * * *", false},
		{"Mon Jul 9 15:05 2012", "5/15 * * * *", true},
		{"Mon Jul 9 15:20 2012", "5/15 * * * *", true},
		{"Mon Jul 9 15:50 2012", "5/15 * * * *", true},
		{"Sun Jul 15 15:00 2012", "0/15 * * Jul *", true},
		{"Sun Jul 15 15:00 2012", "0/15 * * Jun *", false},
		{"Sun Jul 15 08:30 2012", "30 08 ? Jul Sun", true},
		{"Sun Jul 15 08:30 2012", "30 08 15 Jul ?", true},
		{"Mon Jul 16 08:30 2012", "30 08 ? Jul Sun", false},
		{"Mon Jul 16 08:30 2012", "30 08 15 Jul ?", false},
		{"Sun Jul 15 08:30 2012", "30 08 ? Jul Sun", true},
		{"Sun Jul 15 08:30 2012", "30 08 15 Jul ?", true},
		{"Sun Jul 15 00:00 2012", "@weekly", true},
		{"Sat Jul 14 00:00 2012", "@weekly", false},
		{"Sun Jul 1 00:00 2012", "@monthly", true},
		{"Sun Jul 1 00:00 2012", "* * 1,15 * Sun", true},
		{"Fri Jun 15 00:00 2012", "* * 1,15 * Sun", true},
		{"Wed Aug 1 00:00 2012", "* * 1,15 * Sun", true},
		{"Sun Jul 15 00:00 2012", "* * */10 * Sun", true},
		{"Mon Jul 9 00:00 2012", "* * */10 * Sun", false},
		{"Mon Jul 9 00:00 2012", "* * 1,15 * *", false},
		{"Sun Jul 15 00:00 2012", "* * 1,15 * *", true},
		{"Sun Jul 15 00:00 2012", "* * */2 * Sun", true},
	}
	for _, tt := range tests {
		t.Run(tt.time+" "+tt.spec, func(t *testing.T) {
			s, err := Parse(tt.spec, nil)
			require.NoError(t, err)
			at := parseTime(t, tt.time)
			assert.Equal(t, tt.want, s.Next(at.Add(-time.Second)).Equal(at))
		})
	}
}

func parseTime(t *testing.T, v string) time.Time {
	t.Helper()
	for _, layout := range []string{time.RFC3339, "Mon Jan 2 15:04 2006", "Mon Jan 2 15:04:05 2006"} {
		if tm, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			return tm
		}
	}
	t.Fatalf("unparseable time %q", v)
	return time.Time{}
}

// FuzzParse checks that no spec panics the parser or Next, and that Next
// moves strictly forward (or gives up with the zero time).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"*/5 * * * *", "0 0 29 Feb ?", "TZ=America/New_York 0 2 * * ?", "@every 1h", "@weekly", "1-10/2,30 */3 * JAN-mar MON", "TZ=UTC", "CRON_TZ= * * * * *", "*-5/2 ? 31 2 7"} {
		f.Add(s, int64(1341877500))
	}
	f.Fuzz(func(t *testing.T, spec string, unix int64) {
		s, err := Parse(spec, nil)
		if err != nil {
			return
		}
		from := time.Unix(unix%(1<<33), 0).UTC()
		for range 5 {
			next := s.Next(from)
			if next.IsZero() {
				return
			}
			if !next.After(from) {
				t.Fatalf("%q: Next(%v) = %v, not after", spec, from, next)
			}
			from = next
		}
	})
}
