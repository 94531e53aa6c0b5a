//go:build !race

package elfx

// raceDetector: see race_on_test.go.
const raceDetector = false
