package xmss

// Parameters of the scheme (docs/xmss.md §1; the reference's lib.rs).
const (
	// N is the length in bytes of a hash value and of a Merkle node.
	N = 16
	// PublicParamLen is the length in bytes of the public parameter P.
	PublicParamLen = 16
	// TweakLen is the length in bytes of a tweak.
	TweakLen = 16
	// MessageLen is the length in bytes of a signed message (a 256-bit message hash).
	MessageLen = 32
	// RandomnessLen is the length in bytes of the encoding randomness ρ.
	RandomnessLen = 24

	// V is the number of WOTS chains.
	V = 42
	// W is the number of bits per digit.
	W = 3
	// ChainLength is the number of positions of a chain (0..7).
	ChainLength = 1 << W
	// NumChainHashes is the number of chain steps a verifier walks, Σ (7 − x_i).
	NumChainHashes = 99
	// TargetSum is T, the sum of the digits of every valid encoding.
	TargetSum = V*(ChainLength-1) - NumChainHashes

	// LogLifetime is the Merkle height h: a key tree has 2^32 leaves, leaf index = epoch.
	LogLifetime = 32

	// SignatureSize is the length of a serialised signature: tips ‖ ρ ‖ path.
	SignatureSize = V*N + RandomnessLen + LogLifetime*N
	// PublicKeySize is the length of a serialised public key: root ‖ P.
	PublicKeySize = N + PublicParamLen
	// SeedSize is the length of a key-generation seed.
	SeedSize = 32

	// CompressionsPerVerify is the number of BLAKE2s compressions of one verification:
	// encoding 2, chain steps 99, leaf 11, Merkle 32.
	CompressionsPerVerify = 2 + NumChainHashes + LeafBlocks + LogLifetime
	// LeafBlocks is the number of compressions of the leaf hash (704-byte input).
	LeafBlocks = (TweakLen + PublicParamLen + V*N + 63) / 64
)

// Offsets of the fields of a serialised signature (docs/xmss.md §9).
const (
	OffsetTips       = 0
	OffsetRandomness = V * N
	OffsetPath       = V*N + RandomnessLen
)

// Tweak types (byte 0 of a tweak).
const (
	TweakChain    = 0
	TweakLeaf     = 1
	TweakMerkle   = 2
	TweakEncoding = 3
)

// PRF domains: the signer's secrets, the public parameter and the filler nodes.
const (
	domainWotsSecret  = 1000
	domainPublicParam = 1001
	domainFiller      = 1002
)

// Digest is a 16-byte hash value: a chain value, a leaf or a Merkle node.
type Digest = [N]byte

// PublicParam is the public parameter P that separates users.
type PublicParam = [PublicParamLen]byte

// Tweak is a 16-byte tweak: type ‖ LE32(sub_position) ‖ LE32(index) ‖ 0^7.
type Tweak = [TweakLen]byte

// Randomness is the encoding randomness ρ.
type Randomness = [RandomnessLen]byte

// Message is a signed 32-byte message.
type Message = [MessageLen]byte
