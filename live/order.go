package live

import "encoding/binary"

// le is the byte order of every process this package reads (x86_64 and
// i386 are little-endian, and the host is the process's).
var le = binary.LittleEndian
