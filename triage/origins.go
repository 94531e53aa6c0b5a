package triage

import "github.com/coreunwind/coreunwind/report"

// What a bucket says about where its crashes came from: the formats they
// came in (core files, journal entries, apport and ABRT reports) and the
// facts those crash reports record that tell the crashes' places apart
// (units, hosts, boots, packages, command lines). Each list is sorted
// and bounded like the executables (addDistinct), so a bucket's size
// does not grow with its crashes.

// minidumpFormat is the report's core format of a minidump, and a
// minidump's source.
const minidumpFormat = "minidump"

// RecordOrigin is what a Record keeps of a crash's report.Origin.
type RecordOrigin struct {
	Source      string `json:"source"` // "core", "minidump", "journal", "apport" or "abrt"
	Unit        string `json:"unit,omitempty"`
	Hostname    string `json:"hostname,omitempty"`
	BootID      string `json:"boot_id,omitempty"`
	Package     string `json:"package,omitempty"` // NAME or NAME VERSION
	CommandLine string `json:"command_line,omitempty"`
}

// recordOrigin is what a Record keeps of o, core the report's core. A
// minidump is its own crash report: its source is "minidump", and its
// command line the one its Linux streams record.
func recordOrigin(o *report.Origin, core *report.Core) RecordOrigin {
	if o == nil {
		if core != nil && core.Format == minidumpFormat {
			rec := RecordOrigin{Source: minidumpFormat}
			if core.CommandLine != nil {
				rec.CommandLine = *core.CommandLine
			}
			return rec
		}
		return RecordOrigin{Source: "core"}
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	pkg := s(o.Package)
	if pkg != "" && o.PackageVersion != nil {
		pkg += " " + *o.PackageVersion
	}
	return RecordOrigin{Source: o.Format, Unit: s(o.Unit), Hostname: s(o.Hostname), BootID: s(o.BootID),
		Package: pkg, CommandLine: s(o.CommandLine)}
}

// BucketOrigins are the Bucket's lists of where its crashes came from.
type BucketOrigins struct {
	Sources      []string `json:"sources"`
	Units        []string `json:"units"`
	Hostnames    []string `json:"hostnames"`
	BootIDs      []string `json:"boot_ids"`
	Packages     []string `json:"packages"`
	CommandLines []string `json:"command_lines"`
}

func newBucketOrigins() BucketOrigins {
	return BucketOrigins{Sources: []string{}, Units: []string{}, Hostnames: []string{}, BootIDs: []string{},
		Packages: []string{}, CommandLines: []string{}}
}

// lists pairs each list with a value of o that goes into it.
func (b *BucketOrigins) lists(o RecordOrigin) []struct {
	list *[]string
	v    string
} {
	return []struct {
		list *[]string
		v    string
	}{{&b.Sources, o.Source}, {&b.Units, o.Unit}, {&b.Hostnames, o.Hostname}, {&b.BootIDs, o.BootID},
		{&b.Packages, o.Package}, {&b.CommandLines, o.CommandLine}}
}

// add counts one crash's origin.
func (b *BucketOrigins) add(o RecordOrigin) {
	for _, l := range b.lists(o) {
		if l.v != "" {
			*l.list = addDistinct(*l.list, l.v)
		}
	}
}

// merge adds what another collector's bucket lists.
func (b *BucketOrigins) merge(o *BucketOrigins) {
	mine := b.lists(RecordOrigin{})
	theirs := o.lists(RecordOrigin{})
	for i := range mine {
		for _, v := range *theirs[i].list {
			*mine[i].list = addDistinct(*mine[i].list, v)
		}
	}
}
