//go:build !race

package main

// raceDetector is set when the tests run under the race detector, which
// slows every live control plane down several times.
const raceDetector = false
