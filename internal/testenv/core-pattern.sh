# Sourced by test.sh: core_pattern_for_tests makes the kernel write cores
# as "core" in the crashing program's working directory (the end-to-end
# tests read them there) and puts the machine's own pattern back when the
# calling shell exits, however it exits: a pattern left at "core" would
# silently disable systemd-coredump or apport, whose pipes it replaced.
# COREUNWIND_CORE_PATTERN_FILE overrides the kernel's file (for the test
# of this script).

core_pattern_for_tests() {
	cp_file="${COREUNWIND_CORE_PATTERN_FILE:-/proc/sys/kernel/core_pattern}"
	cp_saved=$(cat "$cp_file")
	[ "$cp_saved" = "core" ] && return 0
	if ! echo core > "$cp_file" 2>/dev/null; then
		echo "test.sh: warning: core_pattern is '$cp_saved', not 'core'; the end-to-end tests need kernel cores in the working directory" >&2
		return 0
	fi
	echo "test.sh: core_pattern set to 'core' for the tests; '$cp_saved' is restored at exit" >&2
	trap 'core_pattern_restore' EXIT
	# A shell killed by a signal runs no EXIT trap: exit instead.
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

core_pattern_restore() {
	if printf '%s\n' "$cp_saved" > "$cp_file" 2>/dev/null; then
		echo "test.sh: core_pattern restored to '$cp_saved'" >&2
	else
		echo "test.sh: warning: could not restore core_pattern to '$cp_saved'; write it to $cp_file" >&2
	fi
}
