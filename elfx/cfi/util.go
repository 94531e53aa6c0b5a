package cfi

import (
	"fmt"
	"strconv"
)

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
