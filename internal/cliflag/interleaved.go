// Package cliflag holds what the commands (coreunwind, coreunwind-beam)
// share in parsing their command lines.
package cliflag

import "flag"

// ParseInterleaved parses flags that may come before or after the
// positional arguments (the standard flag package stops at the first
// positional one), and returns the positional ones. A lone "--" ends
// the flags.
func ParseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
