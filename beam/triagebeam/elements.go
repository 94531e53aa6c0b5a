package triagebeam

import (
	"encoding/json"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/coreunwind/coreunwind/triage"
)

// File is one listed file: a local path (on a filesystem every worker
// sees) or an object's URL (gs://, s3://: any scheme Beam's filesystem
// package has registered), or a path that could not be read.
type File struct {
	Name     string `json:"name"`     // the path or URL
	Remote   bool   `json:"remote"`   // Name is a URL: download it first
	Explicit bool   `json:"explicit"` // named on the command line, not found in a directory
	Err      string `json:"err"`      // why it could not be listed
}

// Outcome is one core's result: what its summary needs and, for jsonl,
// its report line.
type Outcome struct {
	Rec  triage.Record `json:"rec"`
	Line string        `json:"line"` // --format jsonl: the report line; else ""
}

// The elements cross workers as JSON: a stable encoding of plain values
// (no open files, no pointers into a report), the same whatever Beam's
// default coders for structs become.
func init() {
	beam.RegisterCoder(reflect.TypeOf(File{}), encodeFile, decodeFile)
	beam.RegisterCoder(reflect.TypeOf(Outcome{}), encodeOutcome, decodeOutcome)
	beam.RegisterCoder(reflect.TypeOf(triage.Record{}), encodeRecord, decodeRecord)
	beam.RegisterCoder(reflect.TypeOf((*triage.Collector)(nil)), encodeCollector, decodeCollector)
}

func encodeFile(v File) ([]byte, error) { return json.Marshal(v) }
func decodeFile(b []byte) (File, error) {
	var v File
	err := json.Unmarshal(b, &v)
	return v, err
}

func encodeOutcome(v Outcome) ([]byte, error) { return json.Marshal(v) }
func decodeOutcome(b []byte) (Outcome, error) {
	var v Outcome
	err := json.Unmarshal(b, &v)
	return v, err
}

func encodeRecord(v triage.Record) ([]byte, error) { return json.Marshal(v) }
func decodeRecord(b []byte) (triage.Record, error) {
	var v triage.Record
	err := json.Unmarshal(b, &v)
	return v, err
}

func encodeCollector(c *triage.Collector) ([]byte, error) { return c.MarshalJSON() }
func decodeCollector(b []byte) (*triage.Collector, error) {
	c := &triage.Collector{}
	if err := c.UnmarshalJSON(b); err != nil {
		return nil, err
	}
	return c, nil
}
