package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/keccak"
	"github.com/leanpipe/leanpipe/stream"
	"github.com/leanpipe/leanpipe/xmss"
)

// The xmss command group: native XMSS key generation, signing and verification in the
// reference's byte layouts, and the xmss-aggregate flow's input file (JSON: message,
// epoch, signers), which `xmss sign --append` builds and `prove --flow xmss-aggregate
// --signatures FILE` proves.

// maxSignaturesFile bounds a signatures file read by the command line: MaxSigners
// signers of about 2.5 KB of JSON each, with room for whitespace.
const maxSignaturesFile = 4 * aggregate.MaxSigners * 2 * (xmss.SignatureSize + xmss.PublicKeySize)

func xmssCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "xmss",
		Short: "XMSS keys, signatures and signatures files (the xmss-aggregate flow's input)",
		Long: `xmss generates keys, signs and verifies XMSS signatures natively, in the
reference's byte layouts (public key 32 bytes, signature 1,208 bytes, as lowercase hex).

A signatures file is the xmss-aggregate flow's input, JSON:
  {"message": "<64 hex>", "epoch": <integer>,
   "signers": [{"public_key": "<64 hex>", "signature": "<2416 hex>"}, …]}
"xmss sign --append FILE" adds a signer to one (creating it), "xmss verify" checks one,
"leanpipe prove --flow xmss-aggregate --signatures FILE" proves it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usage("xmss: give a subcommand (keygen, sign, verify)")
		},
	}
	cmd.AddCommand(xmssKeygenCmd(), xmssSignCmd(), xmssVerifyCmd())
	for _, c := range cmd.Commands() {
		c.Args = usageArgs(c.Args)
	}
	return cmd
}

// readSignatures reads and parses a signatures file (a usage error when it cannot be
// read or is malformed, naming the file and the field).
func readSignatures(flag, path string) (*aggregate.Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, usage("%s: %v", flag, err)
	}
	if !st.Mode().IsRegular() {
		return nil, usage("%s %s: not a regular file", flag, path)
	}
	if st.Size() > maxSignaturesFile {
		return nil, usage("%s %s: %d bytes, at most %d (%d signers)", flag, path, st.Size(), maxSignaturesFile, aggregate.MaxSigners)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usage("%s: %v", flag, err)
	}
	in, err := aggregate.ParseInput(data)
	if err != nil {
		return nil, usage("%s %s: %v", flag, path, err)
	}
	return in, nil
}

// checkSignatures runs the input's check before proving (flows.CheckInput): for an
// xmss-aggregate input an error (exit status 1) naming the invalid signatures by
// index with their reasons, one a line, the first stream.MaxListed of them and then
// "…and N more".
func checkSignatures(in flows.Input) error {
	err := flows.CheckInput(in)
	var bad *aggregate.InvalidSignatures
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &bad):
		return err
	}
	lines := stream.InvalidLines(bad)
	if len(bad.Bad) == 1 {
		return fmt.Errorf("%s; nothing proved", lines[0])
	}
	return fmt.Errorf("%d of %d signatures invalid, nothing proved:\n  %s", len(bad.Bad), bad.Of, strings.Join(lines, "\n  "))
}

// instances names what a flow's instances are, for summaries.
func instances(fl flows.Flow) string {
	switch fl.Name() {
	case aggregate.FlowName:
		return "signatures"
	case flows.Name:
		return "compressions"
	case keccak.FlowName:
		return "permutations"
	}
	return "instances"
}

func xmssVerifyCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "verify --signatures FILE",
		Short: "verify every signature of a signatures file natively: one line per signature, <i> valid or <i> invalid: <reason>",
		Long: `verify reads a signatures file (the xmss-aggregate flow's input) and verifies every
signature on the file's message and epoch under its public key, printing one line per
signature: "<i> valid" or "<i> invalid: <reason>". Exit status 0 when all are valid, 1 when
any is invalid, 2 when the file cannot be read or is malformed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if path == "" {
				return usage("xmss verify: --signatures is required")
			}
			in, err := readSignatures("--signatures", path)
			if err != nil {
				return err
			}
			bad := map[int]error{}
			for _, b := range in.Invalid() {
				bad[b.Index] = b.Err
			}
			out := cmd.OutOrStdout()
			for i := range in.Signers {
				if err, ok := bad[i]; ok {
					fmt.Fprintf(out, "%d invalid: %s\n", i, stream.SignatureReason(err))
				} else {
					fmt.Fprintf(out, "%d valid\n", i)
				}
			}
			if len(bad) > 0 {
				return errRejected
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&path, "signatures", "", "the signatures file (JSON: message, epoch, signers)")
	return cmd
}

func xmssKeygenCmd() *cobra.Command {
	var (
		out, pubOut, seedHex string
		start, end           uint32
		force                bool
	)
	cmd := &cobra.Command{
		Use:   "keygen --out KEY [--seed-hex HEX] [--epoch-start S] [--epoch-end E] [--public-out FILE]",
		Short: "generate an XMSS key pair: writes the secret key file (mode 0600), prints the public key's hex",
		Long: `keygen derives a key pair from a 32-byte seed (--seed-hex, 64 hex digits; drawn from
crypto/rand when absent) for the activation range [--epoch-start, --epoch-end] (inclusive;
the key signs only epochs in it, and key generation costs about 389 compressions per
epoch of the range). It writes the secret key to --out with mode 0600 (40 bytes: seed,
LE32 epoch_start, LE32 epoch_end; leanpipe's layout, the reference defines none), refusing
to replace an existing file without --force, and prints the public key (root ‖ P, 32
bytes) as lowercase hex on stdout, and to --public-out when given.

XMSS is stateful: never sign two messages at one epoch with a key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usage("xmss keygen: --out is required (the secret key file)")
			}
			var seed [xmss.SeedSize]byte
			if seedHex != "" {
				if err := decodeHexFlag("--seed-hex", seed[:], seedHex); err != nil {
					return err
				}
			} else if _, err := rand.Read(seed[:]); err != nil {
				return fmt.Errorf("xmss keygen: reading a random seed: %w", err)
			}
			if start > end {
				return usage("--epoch-start %d is after --epoch-end %d", start, end)
			}
			if r := uint64(end) - uint64(start) + 1; r > xmss.MaxEpochs {
				return usage("--epoch-start %d, --epoch-end %d: %d epochs, at most %d", start, end, r, xmss.MaxEpochs)
			}
			if err := checkOutFile("--out", out); err != nil {
				return err
			}
			if !force {
				if _, err := os.Lstat(out); err == nil {
					return usage("--out %s: exists; a secret key is not replaced without --force", out)
				} else if !errors.Is(err, fs.ErrNotExist) {
					return usage("--out %s: %v", out, err)
				}
			}
			if pubOut != "" {
				if err := atomicfile.Check(pubOut); err != nil {
					return usage("--public-out %s: %v", pubOut, err)
				}
			}
			sk, pk, err := xmss.GenerateKey(seed, start, end)
			if err != nil {
				return usage("xmss keygen: %v", err)
			}
			skb, _ := sk.MarshalBinary()
			if err := atomicfile.WriteMode(out, skb, 0o600); err != nil {
				return err
			}
			if pubOut != "" {
				if err := atomicfile.Write(pubOut, []byte(pk.String()+"\n")); err != nil {
					return err
				}
			}
			fmt.Fprintln(cmd.OutOrStdout(), pk.String())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "secret key file to write (mode 0600)")
	f.StringVar(&seedHex, "seed-hex", "", "the 32-byte key seed as 64 hex digits (default: from crypto/rand)")
	f.Uint32Var(&start, "epoch-start", 0, "first epoch of the activation range")
	f.Uint32Var(&end, "epoch-end", 1023, "last epoch of the activation range (inclusive)")
	f.StringVar(&pubOut, "public-out", "", "also write the public key's hex to this file")
	f.BoolVar(&force, "force", false, "replace an existing --out file")
	return cmd
}

func xmssSignCmd() *cobra.Command {
	var (
		keyPath, msgHex, out, appendPath string
		epoch                            int64
	)
	cmd := &cobra.Command{
		Use:   "sign --key KEY --epoch E --message HEX [--out FILE] [--append SIGNATURES.json]",
		Short: "sign a 32-byte message at an epoch: prints the signature's hex, or adds the signer to a signatures file",
		Long: `sign signs --message (32 bytes, 64 hex digits) at --epoch with the secret key file --key
(written by xmss keygen; the epoch must be in its activation range) and prints the
signature (1,208 bytes) as lowercase hex on stdout, or writes it to --out.

--append FILE adds the signer (public key and signature) to a signatures file, the
xmss-aggregate flow's input, creating it when missing; the file's message and epoch are
then the defaults of --message and --epoch, and must agree with them when given. A key
already in the file is refused.

XMSS is stateful: never sign two messages at one epoch with a key (the key file keeps
no record of the epochs used).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keyPath == "" {
				return usage("xmss sign: --key is required (a file written by xmss keygen)")
			}
			var file *aggregate.Input
			if appendPath != "" {
				if err := atomicfile.Check(appendPath); err != nil {
					return usage("--append %s: %v", appendPath, err)
				}
				if _, err := os.Stat(appendPath); err == nil {
					if file, err = readSignatures("--append", appendPath); err != nil {
						return err
					}
				}
			}
			if out != "" {
				if err := atomicfile.Check(out); err != nil {
					return usage("--out %s: %v", out, err)
				}
			}
			var msg xmss.Message
			switch {
			case msgHex != "":
				if err := decodeHexFlag("--message", msg[:], msgHex); err != nil {
					return err
				}
				if file != nil && msg != file.Message {
					return usage("--message %s differs from %s's message %x", msgHex, appendPath, file.Message)
				}
			case file != nil:
				msg = file.Message
			default:
				return usage("xmss sign: --message is required (64 hex digits)")
			}
			var ep uint32
			switch {
			case cmd.Flags().Changed("epoch"):
				if epoch < 0 || epoch > math.MaxUint32 {
					return usage("--epoch %d: epoch must be 0..2^32-1", epoch)
				}
				ep = uint32(epoch)
				if file != nil && ep != file.Epoch {
					return usage("--epoch %d differs from %s's epoch %d", ep, appendPath, file.Epoch)
				}
			case file != nil:
				ep = file.Epoch
			default:
				return usage("xmss sign: --epoch is required")
			}
			kb, err := os.ReadFile(keyPath)
			if err != nil {
				return usage("--key: %v", err)
			}
			if len(kb) != xmss.SecretKeySize {
				return usage("--key %s: %d bytes, want %d (a file written by xmss keygen)", keyPath, len(kb), xmss.SecretKeySize)
			}
			sk, pk, err := xmss.ParseSecretKey(kb)
			if err != nil {
				return usage("--key %s: %v", keyPath, err)
			}
			if ep < sk.EpochStart() || ep > sk.EpochEnd() {
				return usage("--epoch %d is outside the key's activation range [%d, %d]", ep, sk.EpochStart(), sk.EpochEnd())
			}
			if file != nil {
				for i, s := range file.Signers {
					if s.PublicKey == pk {
						return usage("--append %s: this key is already signer %d", appendPath, i)
					}
				}
			}
			sig, err := sk.Sign(ep, msg, nil)
			if err != nil {
				return fmt.Errorf("xmss sign: %w", err)
			}
			// A signature that does not verify is a bug; never hand one out.
			if err := xmss.Verify(pk, ep, msg, &sig); err != nil {
				return fmt.Errorf("xmss sign: the new signature does not verify (a bug): %w", err)
			}
			sb := sig.Bytes()
			sigHex := hex.EncodeToString(sb[:])
			if appendPath != "" {
				if file == nil {
					file = &aggregate.Input{Message: msg, Epoch: ep}
				}
				file.Signers = append(file.Signers, aggregate.Signer{PublicKey: pk, Signature: sig})
				data, err := file.MarshalJSON()
				if err != nil {
					return err
				}
				if err := atomicfile.Write(appendPath, append(data, '\n')); err != nil {
					return err
				}
			}
			switch {
			case out != "":
				if err := atomicfile.Write(out, []byte(sigHex+"\n")); err != nil {
					return err
				}
			case appendPath == "":
				fmt.Fprintln(cmd.OutOrStdout(), sigHex)
			}
			if appendPath != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "signer %d added to %s (public key %s, epoch %d)\n", len(file.Signers)-1, appendPath, pk, ep)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&keyPath, "key", "", "the secret key file (written by xmss keygen)")
	f.Int64Var(&epoch, "epoch", 0, "the epoch to sign at (in the key's activation range)")
	f.StringVar(&msgHex, "message", "", "the 32-byte message as 64 hex digits")
	f.StringVar(&out, "out", "", "write the signature's hex to this file instead of stdout")
	f.StringVar(&appendPath, "append", "", "add the signer to this signatures file (created when missing)")
	return cmd
}

// decodeHexFlag fills dst from exactly 2·len(dst) hex digits (either case).
func decodeHexFlag(flag string, dst []byte, s string) error {
	if len(s) != 2*len(dst) {
		return usage("%s: %d hex digits, want %d", flag, len(s), 2*len(dst))
	}
	if _, err := hex.Decode(dst, []byte(s)); err != nil {
		return usage("%s: %v", flag, err)
	}
	return nil
}

// addSignaturesFlag adds prove's --signatures flag (signaturesInput reads it).
func addSignaturesFlag(cmd *cobra.Command) {
	cmd.Flags().String("signatures", "", "the "+aggregate.FlowName+" flow's input file (JSON: message, epoch, signers; see leanpipe xmss --help); implies --flow "+aggregate.FlowName)
}

// signaturesInput applies --signatures FILE: the xmss-aggregate flow's input file, so
// it picks that flow (another --flow is a usage error) and is the input path (beside
// --input, a usage error).
func signaturesInput(cmd *cobra.Command, flowName, inputPath *string) error {
	path, _ := cmd.Flags().GetString("signatures")
	if path == "" {
		return nil
	}
	if cmd.Flags().Changed("flow") && *flowName != aggregate.FlowName {
		return usage("--signatures is the %s flow's input; give --input for %s", aggregate.FlowName, *flowName)
	}
	if *inputPath != "" {
		return usage("give --input or --signatures, not both")
	}
	*flowName, *inputPath = aggregate.FlowName, path
	return nil
}

// inputFlag names the flag that gave prove's input file, for its errors.
func inputFlag(cmd *cobra.Command) string {
	for _, name := range []string{"signatures", "blocks", "states"} {
		if cmd.Flags().Changed(name) {
			return "--" + name
		}
	}
	return "--input"
}

// setRate records a run's throughput: signatures/s for xmss-aggregate,
// permutations/s for keccak-batch, compressions/s (the batch flow's, and the
// field's historical name) otherwise.
func (s *runSummary) setRate(fl flows.Flow, perS float64) {
	switch fl.Name() {
	case aggregate.FlowName:
		s.SignaturesPerS = perS
	case keccak.FlowName:
		s.PermutationsPerS = perS
	default:
		s.CompressionsPerS = perS
	}
}
