// Package inflate decodes DEFLATE streams (RFC 1951) held whole in
// memory, into a caller's buffer whose leading bytes are the history
// window. It exists for one job: inflating the zlib-compressed debug
// sections of separate debug files (glibc's .debug_info alone is 5.8 MB),
// which is most of the CPU of a cold report.
//
// Compared with a streaming decoder (compress/flate, klauspost's), it
// reads its input with one 8-byte load per refill instead of a ReadByte
// per byte, resolves a literal or a length/distance base with its extra
// bits in one table lookup, and writes straight into the caller's buffer
// instead of a ring window that is then copied out.
//
// The zlib wrapper (RFC 1950) is the caller's: it passes the deflate
// stream after the 2-byte header and checks the Adler-32 trailer if it
// wants to. Hostile input gives an error, never a panic or an endless
// loop; the rules on Huffman codes are compress/flate's.
package inflate
