package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatTicks(t *testing.T) {
	tests := []struct {
		name, stat string
		want       int64
		err        string
	}{
		{"plain", "42 (etcd) S 1 42 42 0 -1 4194560 100 0 0 0 250 37 0 0 20 0 12 0 1000", 287, ""},
		{"name with spaces and parens", "7 (kube (x) y) R 1 7 7 0 -1 0 0 0 0 0 5 6 0 0", 11, ""},
		{"no name", "7 kube R 1", 0, "no command name"},
		{"short", "7 (a) R 1 2 3", 0, "fields after the command name"},
		{"not a number", "7 (a) R 1 7 7 0 -1 0 0 0 0 0 x 6 0 0", 0, "invalid syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := statTicks(tt.stat)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCPUOfSelf(t *testing.T) {
	// This process has run for a while: its own CPU time is positive, and a
	// pid that does not exist is an error.
	for i := 0; i < 20_000_000; i++ {
		_ = i * i
	}
	d, err := cpuOf([]int{os.Getpid()}, 100)
	require.NoError(t, err)
	assert.Positive(t, d)
	_, err = cpuOf([]int{1 << 30}, 100)
	assert.Error(t, err)
}

func TestParseOptions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		pids []int
		err  string
	}{
		{"defaults", []string{"--kubeconfig=k"}, nil, ""},
		{"pids", []string{"--kubeconfig=k", "--server-pids=12, 34"}, []int{12, 34}, ""},
		{"no kubeconfig", nil, nil, "--kubeconfig is required"},
		{"bad content type", []string{"--kubeconfig=k", "--content-type=yaml"}, nil, "json or protobuf"},
		{"bad pid", []string{"--kubeconfig=k", "--server-pids=12,x"}, nil, `"x" is not a pid`},
		{"no pods", []string{"--kubeconfig=k", "--pods=0"}, nil, "at least 1"},
		{"stray argument", []string{"--kubeconfig=k", "extra"}, nil, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseOptions(tt.args)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.pids, o.serverPIDs)
			assert.Equal(t, 10000, o.pods)
			assert.Equal(t, "protobuf", o.contentType)
		})
	}
}
