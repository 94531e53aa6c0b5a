package elfx

import (
	"strings"
	"sync"
)

// A tail call's target named in libc's DWARF is looked up by name in
// every module, the executable first: node's 12.8 MB of symbol names
// searched once per name (spellings, then symbolByRawName for a name
// node imports) was most of a node core's report. A search for the name
// goes from one occurrence of its rarest byte to the next (node's names
// hold a 'w' in 400 bytes, a 'G' in 300), where strings.Index goes from
// one of its first byte to the next ('_', 'p': every few bytes) and
// compares what follows. The occurrences are the same, in the same
// order.

// maxRareShare is how common (bytes of the table per occurrence) the
// rarest byte of a name may be for the search to go by it. In node's
// names (CPU, 7.5 MB): raise by its 's' (one byte in 37) 3.0 ms against
// strings.Index's 4.5, read by 'd' (1 in 53) 2.5 against 4.1,
// pthread_cond_wait by 'w' (1 in 449) 0.4 against 2.5; uv__io_poll, whose
// rarest byte is its first (1 in 71), is searched by strings.Index,
// which goes by the first byte too.
const maxRareShare = 32

// sampleChunks and sampleChunk are how much of a string table rareByte
// reads to rank bytes: 64 stretches of 512 bytes spread over the table
// (node's symbol names from start to end: C names, then C++ ones).
const (
	sampleChunks = 64
	sampleChunk  = 512
)

// occurrences calls found with the offset of each occurrence of name in
// strs, in increasing order, until found returns false. sample is strs'
// (nil: taken here).
func occurrences(strs string, sample *byteSample, name string, found func(at int) bool) {
	if name == "" {
		return
	}
	if sample == nil {
		sample = new(byteSample)
	}
	if r, ok := sample.take(strs).rarest(name); ok {
		occurrencesBy(strs, name, r, found)
		return
	}
	for from := 0; ; {
		i := strings.Index(strs[from:], name)
		if i < 0 || !found(from+i) {
			return
		}
		from += i + 1
	}
}

// occurrencesBy is occurrences going by name[r]: each occurrence has it
// at its offset + r, and no two the same one. It returns how many
// offsets it compared with name.
func occurrencesBy(strs, name string, r int, found func(at int) bool) (compared int) {
	c := name[r]
	for from := r; from < len(strs); {
		i := strings.IndexByte(strs[from:], c)
		if i < 0 {
			break
		}
		at := from + i - r
		if at+len(name) <= len(strs) {
			compared++
			if strs[at:at+len(name)] == name && !found(at) {
				break
			}
		}
		from += i + 1
	}
	return compared
}

// rareByte is the index in name of the byte a sample of strs holds least
// often; ok is false where that byte is name's first (strings.Index goes
// by it), too common (maxRareShare) or strs too short for a sample to
// tell.
func rareByte(strs, name string) (r int, ok bool) {
	return new(byteSample).take(strs).rarest(name)
}

// byteSample counts the bytes of a sample of a string table, what
// rareByte ranks a name's bytes by. A symbol table keeps its string
// table's (symTable.sample): a report looks a dozen names up in each
// module's tables (tail-call targets, crash analysis's), and each search
// read the 64 stretches again, faulting in pages spread over the table
// (1% of a cold libstdcxx report's CPU, 2% of a warm one's).
type byteSample struct {
	once  sync.Once
	count [256]int
	ok    bool // strs is long enough to sample
}

// take counts strs' sample the first time; later calls (strs must be the
// same table) return what it counted.
func (s *byteSample) take(strs string) *byteSample {
	s.once.Do(func() {
		if len(strs) < sampleChunks*sampleChunk*4 {
			return
		}
		step := len(strs) / sampleChunks
		for k := 0; k < sampleChunks; k++ {
			chunk := strs[k*step : k*step+sampleChunk]
			for i := 0; i < len(chunk); i++ {
				s.count[chunk[i]]++
			}
		}
		s.ok = true
	})
	return s
}

// rarest is rareByte by the sample taken.
func (s *byteSample) rarest(name string) (r int, ok bool) {
	if !s.ok {
		return 0, false
	}
	count := &s.count
	for i := 1; i < len(name); i++ {
		if count[name[i]] < count[name[r]] {
			r = i
		}
	}
	return r, r > 0 && count[name[r]] < count[name[0]] && count[name[r]]*maxRareShare <= sampleChunks*sampleChunk
}
