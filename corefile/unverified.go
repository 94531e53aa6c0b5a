package corefile

// checkWithoutBuildID decides on a candidate file (data, at path) for a
// module whose memory in the core holds no GNU build ID: a Go program
// is checked by the Go build ID, which its linker puts in the PT_NOTE
// segment where the GNU one is missing. It returns "" to accept the
// file, silently when an ID proved it the right one; a warning when
// accepted unverified; reject with why the file is refused.
func (c *Core) checkWithoutBuildID(mod *Module, path string, data []byte) (warning, reject string) {
	if mod.headerUnknown || mod.Base == 0 {
		return "the core does not hold its ELF header; using " + path + " unverified", ""
	}
	coreGo, _ := imageGoBuildID(c.readCore, true, mod.Base)
	if coreGo == "" {
		return "its ELF headers in the core carry no build ID note (GNU or Go); using " + path + " unverified", ""
	}
	fileGo, _ := imageGoBuildID(sliceReader(data), false, 0)
	if fileGo != coreGo {
		if fileGo == "" {
			fileGo = "none"
		}
		return "", "Go build ID " + coreGo + " in core differs from " + fileGo + " in " + path
	}
	return "", ""
}
