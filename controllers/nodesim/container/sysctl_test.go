package container

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// TestSysctl: sysctl reads the pod's sysctls (by either separator, printed
// with dots), else a safe sysctl's kernel default; what it cannot know is
// not simulated. The conformance tests "should support sysctls" run
// /bin/sysctl kernel.shm_rmid_forced and kernel/shm_rmid_forced.
func TestSysctl(t *testing.T) {
	in := Input{Sysctls: []api.Sysctl{{Name: "kernel.shm_rmid_forced", Value: "1"}, {Name: "net/ipv4/conf/eth0.100/forwarding", Value: "1"}}}
	for _, tc := range []struct {
		name    string
		argv    []string
		want    []string
		unknown bool
	}{
		{"the pod's", []string{"/bin/sysctl", "kernel.shm_rmid_forced"}, []string{"kernel.shm_rmid_forced = 1"}, false},
		{"slashes", []string{"/bin/sysctl", "kernel/shm_rmid_forced"}, []string{"kernel.shm_rmid_forced = 1"}, false},
		{"set with slashes", []string{"sysctl", "net.ipv4.conf.eth0/100.forwarding"}, []string{"net.ipv4.conf.eth0/100.forwarding = 1"}, false},
		{"value only", []string{"sysctl", "-n", "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range"}, []string{"1", "32768\t60999"}, false},
		{"a safe default", []string{"sh", "-c", "sysctl net.ipv4.ip_unprivileged_port_start"}, []string{"net.ipv4.ip_unprivileged_port_start = 1024"}, false},
		{"unknown value", []string{"sysctl", "kernel.msgmax"}, nil, true},
		{"writing", []string{"sysctl", "-w", "kernel.shm_rmid_forced=0"}, nil, true},
		{"all", []string{"sysctl", "-a"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := PlanIn(tc.argv[:1], tc.argv[1:], in)
			assert.Equal(t, tc.unknown, r.Forever, r.Why)
			var got []string
			for _, l := range r.Output {
				got = append(got, l.Text)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNormalizeSysctl(t *testing.T) {
	for in, want := range map[string]string{
		"kernel.shm_rmid_forced":           "kernel.shm_rmid_forced",
		"kernel/shm_rmid_forced":           "kernel.shm_rmid_forced",
		"net/ipv4/conf/eno2.100/rp_filter": "net.ipv4.conf.eno2/100.rp_filter",
		"net.ipv4.conf.eno2/100.rp_filter": "net.ipv4.conf.eno2/100.rp_filter",
		"":                                 "",
	} {
		assert.Equal(t, want, NormalizeSysctl(in), in)
	}
}
