package triage

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/coreunwind/coreunwind/report"
)

// Rules are a project's own signature rules (`triage --rules FILE`, the
// format is in docs/triage.md), in the spirit of Sentry's stack-trace and
// fingerprint rules: frame rules decide which frames a signature skips,
// keeps without counting, or calls the app's; fingerprint rules replace a
// whole signature by a name. Later lines win over earlier ones, and any
// rule over the skip list.
type Rules struct {
	frames       []frameRule
	fingerprints []fingerprintRule
	digest       string
}

// frameRule is "MATCHER... ACTION".
type frameRule struct {
	line             int
	text             string
	function, module *regexp.Regexp // nil: any
	action           string         // skip, prefix, keep, +app, -app
}

// fingerprintRule is "MATCHER... -> NAME".
type fingerprintRule struct {
	line     int
	matchers map[string]*regexp.Regexp // signature, program, message, signal
	name     string
}

// maxRulesSize bounds a rules file read whole (it travels in Options).
const maxRulesSize = 1 << 20

// ParseRules reads a rules file's text; an error names the line.
func ParseRules(r io.Reader) (*Rules, error) {
	text, err := io.ReadAll(io.LimitReader(r, maxRulesSize+1))
	if err != nil {
		return nil, err
	}
	if len(text) > maxRulesSize {
		return nil, fmt.Errorf("rules: larger than %d bytes", maxRulesSize)
	}
	sum := sha256.Sum256(text)
	rules := &Rules{digest: hex.EncodeToString(sum[:])[:12]}
	sc := bufio.NewScanner(strings.NewReader(string(text)))
	sc.Buffer(nil, maxRulesSize+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := rules.parseLine(n, line); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return rules, nil
}

func (rs *Rules) parseLine(n int, line string) error {
	toks, err := ruleTokens(line)
	if err != nil {
		return err
	}
	if i := indexOf(toks, "->"); i >= 0 {
		if i != len(toks)-2 || toks[i+1] == "" {
			return fmt.Errorf("want MATCHER... -> NAME")
		}
		fr := fingerprintRule{line: n, name: toks[i+1], matchers: map[string]*regexp.Regexp{}}
		if err := parseMatchers(toks[:i], []string{"signature", "program", "message", "signal"}, fr.matchers); err != nil {
			return err
		}
		rs.fingerprints = append(rs.fingerprints, fr)
		return nil
	}
	action := toks[len(toks)-1]
	switch action {
	case "skip", "prefix", "keep", "+app", "-app":
	default:
		return fmt.Errorf("action %q: want skip, prefix, keep, +app, -app or -> NAME", action)
	}
	m := map[string]*regexp.Regexp{}
	if err := parseMatchers(toks[:len(toks)-1], []string{"function", "module"}, m); err != nil {
		return err
	}
	rs.frames = append(rs.frames, frameRule{line: n, text: line, function: m["function"], module: m["module"], action: action})
	return nil
}

// parseMatchers reads "key:REGEX" tokens, each key one of keys, once; at
// least one.
func parseMatchers(toks, keys []string, into map[string]*regexp.Regexp) error {
	if len(toks) == 0 {
		return fmt.Errorf("no matcher (want %s:REGEX)", strings.Join(keys, ":REGEX, "))
	}
	for _, t := range toks {
		k, v, ok := strings.Cut(t, ":")
		if !ok || indexOf(keys, k) < 0 {
			return fmt.Errorf("matcher %q: want %s:REGEX", t, strings.Join(keys, ":REGEX, "))
		}
		if into[k] != nil {
			return fmt.Errorf("matcher %s: given twice", k)
		}
		re, err := regexp.Compile(`^(?:` + v + `)$`)
		if err != nil {
			return fmt.Errorf("matcher %s: %w", k, err)
		}
		into[k] = re
	}
	return nil
}

// ruleTokens splits a line at spaces; a value may be quoted
// (function:"operator new"): it runs to the next '"' not after a
// backslash, \" is a '"' and every other character, backslashes
// included, is itself (regular expressions keep their escapes). A '#'
// outside quotes starts a comment.
func ruleTokens(line string) ([]string, error) {
	var toks []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '#' {
			break
		}
		end := strings.IndexAny(line, " \t")
		if end < 0 {
			end = len(line)
		}
		tok := line[:end]
		if k, v, ok := strings.Cut(tok, ":"); ok && strings.HasPrefix(v, `"`) {
			val, rest, ok := unquoteValue(line[len(k)+2:])
			if !ok {
				return nil, fmt.Errorf("unterminated quoted value of %s", k)
			}
			toks = append(toks, k+":"+val)
			line = rest
			continue
		}
		toks = append(toks, tok)
		line = line[end:]
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty rule")
	}
	return toks, nil
}

// unquoteValue reads a quoted value's text after its opening quote: the
// value and what follows its closing quote.
func unquoteValue(s string) (val, rest string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case s[i] == '"':
			return b.String(), s[i+1:], true
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", false
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Digest identifies the rules' text (the JSON records it beside the
// signature version: other rules, other buckets); "" for no rules.
func (rs *Rules) Digest() string {
	if rs == nil {
		return ""
	}
	return rs.digest
}

// marksApp reports whether a frame rule marks frames +app: then a
// stack's frames are meaningful only if marked, and signing classifies
// every frame before choosing any.
func (rs *Rules) marksApp() bool {
	if rs == nil {
		return false
	}
	for i := range rs.frames {
		if rs.frames[i].action == "+app" {
			return true
		}
	}
	return false
}

// classify applies the frame rules to a frame the skip list classified:
// the last rule matching decides its skip or prefix, the last +app/-app
// rule its app mark.
func (rs *Rules) classify(c *frameClass) {
	if rs == nil {
		return
	}
	for i := range rs.frames {
		r := &rs.frames[i]
		if r.function != nil && !r.function.MatchString(c.name) || r.module != nil && !r.module.MatchString(c.module) {
			continue
		}
		why := fmt.Sprintf("rules line %d: %s", r.line, r.text)
		switch r.action {
		case "skip":
			c.skip, c.prefix = true, false
		case "prefix":
			c.skip, c.prefix = false, true
		case "keep":
			c.skip, c.prefix = false, false
		case "+app":
			c.app = 1
		case "-app":
			c.app = -1
		}
		c.rule = why
	}
}

// fingerprint replaces sig by the name of the last fingerprint rule that
// matches it: its text, its program, its signal, the crash's message (its
// words in the key, else the crash analysis's summary).
func (rs *Rules) fingerprint(sig *Signature, r *report.Report) {
	if rs == nil {
		return
	}
	msg := ""
	if r.Crash != nil {
		msg = r.Crash.Summary
		if w := crashWords(r.Crash); w != "" {
			msg = w
		} else if cf := crashFrames(r); cf != nil {
			msg = cf[0]
		}
	}
	subject := map[string]string{"signature": sig.Text, "program": sig.Program, "message": msg, "signal": sig.Signal}
	for i := len(rs.fingerprints) - 1; i >= 0; i-- {
		fr := &rs.fingerprints[i]
		ok := true
		for k, re := range fr.matchers {
			ok = ok && re.MatchString(subject[k])
		}
		if !ok {
			continue
		}
		sig.Frames = []string{fr.name}
		sig.Text = fr.name
		sig.Exact = true
		sig.Fingerprint = fr.line
		// The name alone is the key: the rule says these crashes are one
		// bug whatever program or signal.
		sig.ID = signatureID("", "fingerprint", sig.Frames)
		return
	}
}
