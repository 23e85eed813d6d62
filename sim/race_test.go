//go:build race

package sim_test

// raceDetector is set when the tests run under the race detector, which
// slows every simulated run down more than ten times.
const raceDetector = true
