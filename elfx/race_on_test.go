//go:build race

package elfx

// raceDetector tells whether the tests run under -race, whose shadow
// memory faults pages in beside the program's: bounds on page faults do
// not hold there.
const raceDetector = true
