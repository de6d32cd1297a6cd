package merkle

import (
	"unsafe"

	"github.com/leanpipe/leanpipe/blake2s"
)

// Digest is a 32-byte BLAKE2s-256 output: a leaf hash, an internal node or a root.
type Digest = blake2s.Digest

// littleEndian reports whether uint64 words are stored little-endian in memory, in which
// case a []uint64 row is already its own leaf preimage and is hashed in place.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// wordBytes views words as their in-memory bytes. Only meaningful as the leaf preimage
// when littleEndian is true.
func wordBytes(words []uint64) []byte {
	if len(words) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), 8*len(words))
}

// putWords writes words as 8-byte little-endian values into dst (len(dst) >= 8·len(words)).
func putWords(dst []byte, words []uint64) {
	for i, w := range words {
		b := dst[8*i : 8*i+8 : 8*i+8]
		b[0], b[1], b[2], b[3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
		b[4], b[5], b[6], b[7] = byte(w>>32), byte(w>>40), byte(w>>48), byte(w>>56)
	}
}

// HashRow returns the leaf hash of one row: BLAKE2s-256 of its words as 8-byte
// little-endian values.
func HashRow(row []uint64) Digest {
	if littleEndian {
		return blake2s.Sum256(wordBytes(row))
	}
	buf := make([]byte, 8*len(row))
	putWords(buf, row)
	return blake2s.Sum256(buf)
}

// HashPaddedRow returns the leaf hash of row's image leafWords wide: leafWords - len(row)
// zero words, then row (len(row) <= leafWords).
func HashPaddedRow(row []uint64, leafWords int) Digest {
	if len(row) == leafWords {
		return HashRow(row)
	}
	img := make([]uint64, leafWords)
	copy(img[leafWords-len(row):], row)
	return HashRow(img)
}

// sumMany sets dst[i] = BLAKE2s-256(Z ‖ src[i·msgLen : (i+1)·msgLen]), Z being zeroBlocks
// 64-byte zero blocks.
func sumMany(dst []Digest, src []byte, msgLen, zeroBlocks int) {
	blake2s.SumManyZeroPrefix(dst, src, msgLen, zeroBlocks)
}

// nodeMany sets dst[i] = Node(children[2i], children[2i+1]).
func nodeMany(dst []Digest, children []Digest) { blake2s.NodeMany(dst, children) }

// nodeOf returns Node(left, right).
func nodeOf(left, right *Digest) Digest { return blake2s.Node(left, right) }

// hashRows sets dst[i] to the hash of zeroBlocks 64-byte zero blocks followed by row i of
// rows (rowWords words per row).
func hashRows(dst []Digest, rows []uint64, rowWords, zeroBlocks int) {
	if littleEndian {
		sumMany(dst, wordBytes(rows), 8*rowWords, zeroBlocks)
		return
	}
	const batch = 64
	buf := make([]byte, 8*rowWords*min(batch, len(dst)))
	for lo := 0; lo < len(dst); lo += batch {
		hi := min(lo+batch, len(dst))
		chunk := buf[:8*rowWords*(hi-lo)]
		putWords(chunk, rows[lo*rowWords:hi*rowWords])
		sumMany(dst[lo:hi], chunk, 8*rowWords, zeroBlocks)
	}
}

// paddedBuffer returns the staging buffer hashPaddedRows needs for rows of rowWords
// words padded to leafWords (nil when none is needed).
func paddedBuffer(rowWords, leafWords int) []uint64 {
	pad := leafWords - rowWords
	if pad%8 == 0 {
		return nil
	}
	tailWords := pad%8 + rowWords
	batch := max(1, paddedBatchWords/tailWords)
	return make([]uint64, batch*tailWords)
}

// paddedBatchWords bounds the staging buffer of hashPaddedRows.
const paddedBatchWords = 1 << 13

// hashPaddedRows sets dst[i] to the hash of row i's image: leafWords - rowWords zero
// words, then the row. The whole zero blocks of the prefix are common to every image and
// hashed once (blake2s.SumManyZeroPrefix); when a zero remainder of less than a block is
// left, the images' tails (remainder, then row) are staged a batch at a time in buf (from
// paddedBuffer for the same widths): its zero remainders are never written, so they stay
// zero across calls.
func hashPaddedRows(dst []Digest, rows []uint64, rowWords, leafWords int, buf []uint64) {
	pad := leafWords - rowWords
	zeroBlocks, rest := pad/8, pad%8
	if rest == 0 {
		hashRows(dst, rows, rowWords, zeroBlocks)
		return
	}
	tailWords := rest + rowWords
	batch := len(buf) / tailWords
	for lo := 0; lo < len(dst); lo += batch {
		hi := min(lo+batch, len(dst))
		for i := lo; i < hi; i++ {
			copy(buf[(i-lo)*tailWords+rest:(i-lo+1)*tailWords], rows[i*rowWords:(i+1)*rowWords])
		}
		hashRows(dst[lo:hi], buf[:(hi-lo)*tailWords], tailWords, zeroBlocks)
	}
}
