//go:build race

package protobuf

// raceEnabled says the tests run under the race detector.
const raceEnabled = true
