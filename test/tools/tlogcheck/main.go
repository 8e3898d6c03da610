// Command tlogcheck independently verifies a C2SP tlog-tiles transparency log
// served over HTTP, using Go's golang.org/x/mod/sumdb/{tlog,note} (Debian's
// golang-golang-x-mod-dev 0.7.0 builds it offline).
//
// It fetches <base>/checkpoint, verifies the log's Ed25519 note signature (and
// optionally cosignature/v1 witness cosignatures), then:
//
//  1. audit: fetches every tile a tree of the checkpoint's size consists of
//     (all levels, full and partial) and every entry bundle, checks their sizes
//     and encodings, checks that each level-0 hash is the RFC 6962 leaf hash of
//     its entry, that each level-L hash is the root of the full level-(L-1)
//     tile below it, and that the root computed from the entries alone (its own
//     RFC 6962 code) and by tlog.TreeHash over the unauthenticated tiles both
//     equal the checkpoint's root;
//  2. proofs: through tlog.TileHashReader (meant to authenticate every tile
//     against the checkpoint; see the CAUTION in run) and a TileReader that
//     maps Go's sumdb tile coordinates (tile/8/L/N) onto C2SP paths (tile/L/N),
//     computes
//     tlog.TreeHash, proves every entry's inclusion with tlog.ProveRecord and
//     checks it with tlog.CheckRecord, and proves consistency from each older
//     size (-old, -old-checkpoint) with tlog.ProveTree / tlog.CheckTree.
//
// Exit status: 0 when everything holds, 1 when anything failed (each failure
// is printed as a "FAIL" line), 2 on bad usage.
package main

import (
	"compress/gzip"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// tileHeight is fixed by C2SP tlog-tiles: 2^8 = 256 hashes per full tile.
const tileHeight = 8

const fullWidth = 1 << tileHeight

// ---------------------------------------------------------------------------
// C2SP paths

// encodeIndex encodes a tile index as C2SP (and Go sumdb) do: zero-padded
// 3-digit path elements, all but the last prefixed with "x"
// (1234067 -> "x001/x234/067").
func encodeIndex(n int64) string {
	s := fmt.Sprintf("%03d", n%1000)
	for n >= 1000 {
		n /= 1000
		s = fmt.Sprintf("x%03d/%s", n%1000, s)
	}
	return s
}

// c2spPath is the C2SP tlog-tiles path of a Go tlog.Tile of height 8:
// tile/<L>/<N>[.p/<W>] for hashes, tile/entries/<N>[.p/<W>] for the data
// level (L == -1). Go's sumdb path has the height as an extra element
// (tile/8/<L>/<N>, tile/8/data/<N>); C2SP has none.
func c2spPath(t tlog.Tile) (string, error) {
	if t.H != tileHeight {
		return "", fmt.Errorf("tile height %d: C2SP tiles have height %d", t.H, tileHeight)
	}
	if t.L < -1 || t.L > 63 || t.N < 0 || t.W < 1 || t.W > fullWidth {
		return "", fmt.Errorf("invalid tile %+v", t)
	}
	level := strconv.Itoa(t.L)
	if t.L == -1 {
		level = "entries"
	}
	p := "tile/" + level + "/" + encodeIndex(t.N)
	if t.W < fullWidth {
		p += ".p/" + strconv.Itoa(t.W)
	}
	return p, nil
}

// c2spPathFromGo is the same mapping done textually on Go's own Path(), as a
// cross-check: drop the "8/" height element, rename "data" to "entries".
func c2spPathFromGo(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", t.H))
	if strings.HasPrefix(p, "data/") {
		p = "entries/" + strings.TrimPrefix(p, "data/")
	}
	return "tile/" + p
}

// ---------------------------------------------------------------------------
// HTTP

type fetcher struct {
	base      string
	client    *http.Client
	laxHeader bool
	verbose   bool
	headers   []string

	mu       sync.Mutex
	cache    map[string][]byte
	requests int
	bytes    int64
	warnings []string
}

type httpError struct {
	url    string
	status int
	body   string
}

func (e *httpError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d %s", e.url, e.status, strings.TrimSpace(e.body))
}

func (f *fetcher) warn(format string, args ...interface{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.warnings = append(f.warnings, fmt.Sprintf(format, args...))
}

// get fetches base/path, asking for gzip and identity as C2SP tlog-tiles
// recommends, and checks the Content-Type starts with wantType. Immutable
// resources (everything but the checkpoint) are cached in memory.
func (f *fetcher) get(path, wantType string, immutable bool) ([]byte, http.Header, error) {
	if immutable {
		f.mu.Lock()
		b, ok := f.cache[path]
		f.mu.Unlock()
		if ok {
			return b, nil, nil
		}
	}
	url := f.base + "/" + path
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, nil, err
	}
	// Setting Accept-Encoding ourselves turns off Go's transparent gzip, so
	// decode below.
	req.Header.Set("Accept-Encoding", "gzip, identity")
	for _, h := range f.headers {
		name, value, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if ce := resp.Header.Get("Content-Encoding"); ce == "gzip" {
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, nil, fmt.Errorf("GET %s: bad gzip: %v", url, err)
		}
		r = zr
	} else if ce != "" && ce != "identity" {
		return nil, nil, fmt.Errorf("GET %s: unexpected Content-Encoding %q", url, ce)
	}
	body, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %v", url, err)
	}
	f.mu.Lock()
	f.requests++
	f.bytes += int64(len(body))
	f.mu.Unlock()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &httpError{url, resp.StatusCode, firstLine(body)}
	}
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(strings.ToLower(ct), wantType) {
		msg := fmt.Sprintf("GET %s: Content-Type %q, want %s", url, ct, wantType)
		if !f.laxHeader {
			return nil, nil, errors.New(msg)
		}
		f.warn("%s", msg)
	}
	cc := strings.ToLower(resp.Header.Get("Cache-Control"))
	if immutable && cc == "" {
		f.warn("GET %s: no Cache-Control (C2SP: immutable, SHOULD be long-lived)", path)
	}
	if !immutable && (cc == "" || !(strings.Contains(cc, "no-") || strings.Contains(cc, "max-age"))) {
		f.warn("GET %s: Cache-Control %q (C2SP: SHOULD prevent caching beyond a few seconds)", path, cc)
	}
	if immutable {
		f.mu.Lock()
		f.cache[path] = body
		f.mu.Unlock()
	}
	return body, resp.Header, nil
}

func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// readTile fetches one tile (hash or entries). A partial tile that is gone
// (404) is read from the full tile instead, as C2SP allows once the full tile
// exists (the prefix of a full tile is the partial tile).
func (f *fetcher) readTile(t tlog.Tile) ([]byte, error) {
	p, err := c2spPath(t)
	if err != nil {
		return nil, err
	}
	if alt := c2spPathFromGo(t); alt != p {
		return nil, fmt.Errorf("bad path mapping: %s vs %s", p, alt)
	}
	data, _, err := f.get(p, "application/octet-stream", true)
	var he *httpError
	if err != nil && errors.As(err, &he) && he.status == http.StatusNotFound && t.W < fullWidth {
		full := t
		full.W = fullWidth
		fp, _ := c2spPath(full)
		fdata, _, ferr := f.get(fp, "application/octet-stream", true)
		if ferr != nil {
			return nil, err
		}
		if f.verbose {
			fmt.Printf("note  %s is gone; read it from the full tile %s\n", p, fp)
		}
		if t.L == -1 {
			return bundlePrefix(fdata, t.W)
		}
		if len(fdata) < t.W*tlog.HashSize {
			return nil, fmt.Errorf("full tile %s is %d bytes", fp, len(fdata))
		}
		return fdata[:t.W*tlog.HashSize], nil
	}
	return data, err
}

// tileReader is a tlog.TileReader over C2SP paths. Go's tileHashReader asks
// for tlog.Tile{H: 8, L, N, W}; ReadTiles serves them from <base>/tile/L/N.
type tileReader struct{ f *fetcher }

func (r tileReader) Height() int { return tileHeight }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	data := make([][]byte, len(tiles))
	errs := make([]error, len(tiles))
	var wg sync.WaitGroup
	for i, t := range tiles {
		wg.Add(1)
		go func(i int, t tlog.Tile) {
			defer wg.Done()
			data[i], errs[i] = r.f.readTile(t)
		}(i, t)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		if len(data[i]) != tiles[i].W*tlog.HashSize {
			p, _ := c2spPath(tiles[i])
			return nil, fmt.Errorf("%s is %d bytes, want %d", p, len(data[i]), tiles[i].W*tlog.HashSize)
		}
	}
	return data, nil
}

// SaveTiles is called once tileHashReader has authenticated the tiles; they
// are only kept in memory here.
func (r tileReader) SaveTiles(tiles []tlog.Tile, data [][]byte) {}

// memoHashReader remembers the hashes a HashReader returned.
type memoHashReader struct {
	r     tlog.HashReader
	known map[int64]tlog.Hash
}

// warm reads, in one call, every complete subtree hash inside level-0 tile n
// of a tree of the given size.
func (m *memoHashReader) warm(n, size int64) error {
	var xs []int64
	for level := 0; level < tileHeight; level++ {
		lo := n * fullWidth >> uint(level)
		hi := (n + 1) * fullWidth >> uint(level)
		for k := lo; k < hi && (k+1)<<uint(level) <= size; k++ {
			xs = append(xs, tlog.StoredHashIndex(level, k))
		}
	}
	_, err := m.ReadHashes(xs)
	return err
}

func (m *memoHashReader) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	var missing []int64
	for _, x := range indexes {
		if _, ok := m.known[x]; !ok {
			missing = append(missing, x)
		}
	}
	if len(missing) > 0 {
		hs, err := m.r.ReadHashes(missing)
		if err != nil {
			return nil, err
		}
		if len(hs) != len(missing) {
			return nil, fmt.Errorf("ReadHashes(%d indexes) = %d hashes", len(missing), len(hs))
		}
		for i, x := range missing {
			m.known[x] = hs[i]
		}
	}
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		out[i] = m.known[x]
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Checkpoints and cosignatures

type checkpoint struct {
	origin     string
	size       int64
	hash       tlog.Hash
	extensions []string
}

// parseCheckpoint reads a C2SP tlog-checkpoint note text. (tlog.ParseTree
// only reads Go's "go.sum database tree" notes.)
func parseCheckpoint(text string) (checkpoint, error) {
	var c checkpoint
	if !strings.HasSuffix(text, "\n") {
		return c, errors.New("checkpoint text does not end in a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 3 {
		return c, errors.New("checkpoint has fewer than 3 lines")
	}
	c.origin = lines[0]
	if c.origin == "" {
		return c, errors.New("empty origin line")
	}
	if !regexpDecimal(lines[1]) {
		return c, fmt.Errorf("tree size %q is not a decimal without leading zeroes", lines[1])
	}
	n, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		return c, fmt.Errorf("tree size %q: %v", lines[1], err)
	}
	c.size = n
	h, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(h) != tlog.HashSize || base64.StdEncoding.EncodeToString(h) != lines[2] {
		return c, fmt.Errorf("root hash %q is not the base64 of 32 bytes", lines[2])
	}
	copy(c.hash[:], h)
	for _, l := range lines[3:] {
		if l == "" {
			return c, errors.New("empty extension line")
		}
		c.extensions = append(c.extensions, l)
	}
	return c, nil
}

func regexpDecimal(s string) bool {
	if s == "0" {
		return true
	}
	if s == "" || s[0] < '1' || s[0] > '9' {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// cosigVerifier verifies C2SP tlog-cosignature Ed25519 (cosignature/v1,
// signature type 0x04) lines: x/mod's note.NewVerifier only knows type 0x01.
// note.Open hands Verify the note text and the signature bytes after the
// 4-byte key ID: 8-byte big-endian timestamp || 64-byte Ed25519 signature
// over "cosignature/v1\ntime <t>\n" || text.
type cosigVerifier struct {
	name string
	hash uint32
	key  ed25519.PublicKey

	mu   sync.Mutex
	time uint64
}

func newCosigVerifier(vkey string) (*cosigVerifier, error) {
	parts := strings.SplitN(vkey, "+", 3)
	if len(parts) != 3 || len(parts[1]) != 8 {
		return nil, errors.New("not a vkey <name>+<hex id>+<base64 key>")
	}
	id, err := strconv.ParseUint(parts[1], 16, 32)
	if err != nil {
		return nil, err
	}
	k, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(k) != 1+ed25519.PublicKeySize || k[0] != 0x04 {
		return nil, errors.New("a cosignature/v1 vkey holds type byte 0x04 and a 32-byte Ed25519 key")
	}
	sum := sha256.Sum256(append([]byte(parts[0]+"\n"), k...))
	if binary.BigEndian.Uint32(sum[:4]) != uint32(id) {
		return nil, fmt.Errorf("key id %s does not match SHA-256(name||0x0A||0x04||key)[:4] = %x", parts[1], sum[:4])
	}
	return &cosigVerifier{name: parts[0], hash: uint32(id), key: ed25519.PublicKey(k[1:])}, nil
}

func (v *cosigVerifier) Name() string    { return v.name }
func (v *cosigVerifier) KeyHash() uint32 { return v.hash }
func (v *cosigVerifier) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	t := binary.BigEndian.Uint64(sig[:8])
	if t >= 1<<63 {
		return false
	}
	signed := append([]byte(fmt.Sprintf("cosignature/v1\ntime %d\n", t)), msg...)
	if !ed25519.Verify(v.key, signed, sig[8:]) {
		return false
	}
	v.mu.Lock()
	v.time = t
	v.mu.Unlock()
	return true
}

// openCheckpoint verifies a checkpoint note: the log's signature must be there
// and valid; every known witness's cosignature that is present must be valid.
func openCheckpoint(msg []byte, logV note.Verifier, witnesses []*cosigVerifier) (*note.Note, checkpoint, error) {
	list := []note.Verifier{logV}
	for _, w := range witnesses {
		list = append(list, w)
	}
	n, err := note.Open(msg, note.VerifierList(list...))
	if err != nil {
		return nil, checkpoint{}, fmt.Errorf("note.Open: %v", err)
	}
	signedByLog := false
	for _, s := range n.Sigs {
		if s.Name == logV.Name() && s.Hash == logV.KeyHash() {
			signedByLog = true
		}
	}
	if !signedByLog {
		// note.Open is satisfied by any known key, a witness's included.
		return nil, checkpoint{}, fmt.Errorf("no signature of the log key %s", logV.Name())
	}
	c, err := parseCheckpoint(n.Text)
	if err != nil {
		return nil, checkpoint{}, err
	}
	return n, c, nil
}

// ---------------------------------------------------------------------------
// Independent RFC 6962 hashing (not x/mod's) for the audit

func leafHash(data []byte) tlog.Hash {
	h := sha256.New()
	h.Write([]byte{0})
	h.Write(data)
	var out tlog.Hash
	copy(out[:], h.Sum(nil))
	return out
}

func nodeHash(l, r tlog.Hash) tlog.Hash {
	h := sha256.New()
	h.Write([]byte{1})
	h.Write(l[:])
	h.Write(r[:])
	var out tlog.Hash
	copy(out[:], h.Sum(nil))
	return out
}

// mth is RFC 6962 MTH over hashes (split at the largest power of two < n).
func mth(hs []tlog.Hash) tlog.Hash {
	switch len(hs) {
	case 0:
		return tlog.Hash(sha256.Sum256(nil))
	case 1:
		return hs[0]
	}
	k := 1
	for k*2 < len(hs) {
		k *= 2
	}
	return nodeHash(mth(hs[:k]), mth(hs[k:]))
}

func splitHashes(data []byte) []tlog.Hash {
	hs := make([]tlog.Hash, len(data)/tlog.HashSize)
	for i := range hs {
		copy(hs[i][:], data[i*tlog.HashSize:])
	}
	return hs
}

// bundlePrefix is the start of a full entry bundle holding its first w
// entries: the partial bundle of width w.
func bundlePrefix(data []byte, w int) ([]byte, error) {
	off := 0
	for i := 0; i < w; i++ {
		if len(data) < off+2 {
			return nil, fmt.Errorf("full bundle ends after %d entries", i)
		}
		off += 2 + int(binary.BigEndian.Uint16(data[off:]))
	}
	if off > len(data) {
		return nil, errors.New("full bundle is truncated")
	}
	return data[:off], nil
}

// parseBundle reads an entry bundle: big-endian uint16 length, then that many
// bytes, repeated; exactly want entries and nothing after.
func parseBundle(data []byte, want int) ([][]byte, error) {
	var entries [][]byte
	for len(data) > 0 {
		if len(data) < 2 {
			return nil, fmt.Errorf("truncated length prefix after %d entries", len(entries))
		}
		n := int(binary.BigEndian.Uint16(data))
		if len(data) < 2+n {
			return nil, fmt.Errorf("entry %d claims %d bytes, %d left", len(entries), n, len(data)-2)
		}
		entries = append(entries, data[2:2+n])
		data = data[2+n:]
		if len(entries) > want {
			break
		}
	}
	if len(entries) != want {
		return nil, fmt.Errorf("%d entries, want %d", len(entries), want)
	}
	return entries, nil
}

// ---------------------------------------------------------------------------

type checker struct {
	f        *fetcher
	failures []string
	bundles  map[int64][][]byte // parsed entry bundles, by index
}

func (c *checker) fail(format string, args ...interface{}) {
	msg := fmt.Sprintf(format, args...)
	c.failures = append(c.failures, msg)
	fmt.Printf("FAIL  %s\n", msg)
}

func okf(format string, args ...interface{}) { fmt.Printf("ok    "+format+"\n", args...) }

// tilesOf lists the tiles a tree of size n consists of, as C2SP defines them:
// per level l, floor(n/256^(l+1)) full tiles and, when floor(n/256^l) mod 256
// is not 0, one partial tile of that width; levels stop when floor(n/256^l)
// is 0.
func tilesOf(n int64) []tlog.Tile {
	var ts []tlog.Tile
	for l := 0; l < 64; l++ {
		atLevel := n >> (tileHeight * uint(l)) // hashes at this tile level
		if atLevel == 0 {
			break
		}
		full := atLevel >> tileHeight
		for i := int64(0); i < full; i++ {
			ts = append(ts, tlog.Tile{H: tileHeight, L: l, N: i, W: fullWidth})
		}
		if w := int(atLevel % fullWidth); w > 0 {
			ts = append(ts, tlog.Tile{H: tileHeight, L: l, N: full, W: w})
		}
	}
	return ts
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var (
		base       = flag.String("url", "", "log prefix URL, e.g. http://127.0.0.1:8080/log (required)")
		vkey       = flag.String("vkey", "", "log's note verifier key <name>+<hex id>+<base64(0x01||key)> (required)")
		vkeyFile   = flag.String("vkey-file", "", "read -vkey from this file")
		origin     = flag.String("origin", "", "expected checkpoint origin (default: any)")
		olds       = flag.String("old", "", "comma-separated older tree sizes to prove consistency from (root taken from the tiles)")
		minSize    = flag.Int64("min-size", 0, "fail when the checkpoint's tree size is below this")
		skipAudit  = flag.Bool("no-audit", false, "skip the full audit of every tile and entry bundle")
		proofs     = flag.Int64("proofs", -1, "inclusion proofs to check: -1 all entries, N the first N and last N, 0 none")
		laxHeaders = flag.Bool("lax-headers", false, "only warn about a wrong Content-Type")
		verbose    = flag.Bool("v", false, "print warnings and more detail")
		timeout    = flag.Duration("timeout", 30*time.Second, "HTTP timeout per request")
		witnesses  stringList
		oldNotes   stringList
		headers    stringList
	)
	quorum := flag.Int("quorum", -1, "cosignatures required from -witness keys (default: all of them)")
	flag.Var(&witnesses, "witness", "cosignature/v1 witness vkey (type 0x04); repeatable")
	flag.Var(&headers, "header", "request header 'Name: value' sent with every request (e.g. an Authorization token); repeatable")
	flag.Var(&oldNotes, "old-checkpoint", "file with an older checkpoint note of the same log: prove consistency to it; repeatable")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: tlogcheck -url <prefix> -vkey <vkey> [-old N,M] [-old-checkpoint file] [-witness vkey]...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *vkeyFile != "" {
		b, err := os.ReadFile(*vkeyFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		*vkey = strings.TrimSpace(string(b))
	}
	if *base == "" || *vkey == "" || flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	logV, err := note.NewVerifier(*vkey)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bad -vkey: %v (x/mod's note only reads Ed25519 vkeys, type 0x01)\n", err)
		os.Exit(2)
	}
	var cosigners []*cosigVerifier
	for _, w := range witnesses {
		v, err := newCosigVerifier(w)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bad -witness %q: %v\n", w, err)
			os.Exit(2)
		}
		cosigners = append(cosigners, v)
	}
	if *quorum < 0 {
		*quorum = len(cosigners)
	}
	var oldSizes []int64
	if *olds != "" {
		for _, s := range strings.Split(*olds, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil || n < 0 {
				fmt.Fprintf(os.Stderr, "bad -old %q\n", s)
				os.Exit(2)
			}
			oldSizes = append(oldSizes, n)
		}
	}

	f := &fetcher{
		base:      strings.TrimSuffix(*base, "/"),
		client:    &http.Client{Timeout: *timeout},
		laxHeader: *laxHeaders,
		verbose:   *verbose,
		headers:   headers,
		cache:     map[string][]byte{},
	}
	c := &checker{f: f, bundles: map[int64][][]byte{}}
	start := time.Now()
	c.run(logV, cosigners, *quorum, *origin, *minSize, oldSizes, oldNotes, !*skipAudit, *proofs)

	if *verbose || len(c.failures) > 0 {
		for _, w := range f.warnings {
			fmt.Printf("warn  %s\n", w)
		}
	}
	fmt.Printf("%d HTTP requests, %d bytes, %.2fs\n", f.requests, f.bytes, time.Since(start).Seconds())
	if len(c.failures) > 0 {
		fmt.Printf("FAILED: %d check(s) failed\n", len(c.failures))
		os.Exit(1)
	}
	fmt.Println("PASS")
}

func (c *checker) run(logV note.Verifier, cosigners []*cosigVerifier, quorum int, wantOrigin string,
	minSize int64, oldSizes []int64, oldNotes []string, audit bool, proofs int64) {
	f := c.f

	// 1. Checkpoint.
	msg, _, err := f.get("checkpoint", "text/plain", false)
	if err != nil {
		c.fail("checkpoint: %v", err)
		return
	}
	n, cp, err := openCheckpoint(msg, logV, cosigners)
	if err != nil {
		c.fail("checkpoint: %v\n%s", err, msg)
		return
	}
	okf("checkpoint %s, tree size %d, root %s: signature of %s verified", cp.origin, cp.size, cp.hash, logV.Name())
	if wantOrigin != "" && cp.origin != wantOrigin {
		c.fail("checkpoint origin %q, want %q", cp.origin, wantOrigin)
	}
	if cp.size < minSize {
		c.fail("checkpoint tree size %d is below -min-size %d", cp.size, minSize)
	}
	if len(cosigners) > 0 {
		got := 0
		for _, w := range cosigners {
			for _, s := range n.Sigs {
				if s.Name == w.name && s.Hash == w.hash {
					got++
					okf("cosignature/v1 of %s verified, time %d (%s)", w.name, w.time, time.Unix(int64(w.time), 0).UTC().Format(time.RFC3339))
				}
			}
		}
		if got < quorum {
			c.fail("%d of the %d witnesses cosigned the checkpoint, %d required", got, len(cosigners), quorum)
		}
	}
	if cp.size == 0 {
		// x/mod's TreeHash(0) is the zero hash; RFC 6962's empty root is SHA-256("").
		if cp.hash != tlog.Hash(sha256.Sum256(nil)) {
			c.fail("empty tree's root is %s, want SHA-256(\"\")", cp.hash)
		} else {
			okf("empty tree: root is SHA-256(\"\")")
		}
		return
	}
	tree := tlog.Tree{N: cp.size, Hash: cp.hash}

	// 2. Audit every tile and entry bundle.
	leaves := make([][]byte, cp.size)
	haveLeaves := false
	if audit {
		haveLeaves = c.audit(cp, leaves)
	}

	// 3. Go's "authenticating" tile reader. CAUTION: x/mod's tileHashReader
	// (0.7.0 and still in v0.37) starts its parent-authentication loop at
	// len(stx) (tree-hash *indexes*) instead of the number of distinct tree-hash
	// *tiles*, so the first few tiles fetched for other indexes are returned
	// unauthenticated (see TestXModTileHashReaderGap). Nothing here trusts a
	// hash because ReadHashes returned it: every use ends in tlog.CheckRecord /
	// tlog.CheckTree against the signed root (and the audit checks every tile).
	// ReadHashes re-reads and re-checks tiles on every call, so the hashes are
	// memoized for speed.
	thr := &memoHashReader{r: tlog.TileHashReader(tree, tileReader{f}), known: map[int64]tlog.Hash{}}
	th, err := tlog.TreeHash(cp.size, thr)
	if err != nil {
		c.fail("tlog.TreeHash via TileHashReader: %v", err)
		return
	}
	if th != cp.hash {
		c.fail("tlog.TreeHash = %s, checkpoint root %s", th, cp.hash)
		return
	}
	okf("tlog.TreeHash(%d) over the C2SP tiles (TileHashReader) = checkpoint root", cp.size)

	// 4. Inclusion of entries.
	if proofs != 0 {
		var idx []int64
		if proofs < 0 || 2*proofs >= cp.size {
			for i := int64(0); i < cp.size; i++ {
				idx = append(idx, i)
			}
		} else {
			for i := int64(0); i < proofs; i++ {
				idx = append(idx, i, cp.size-1-i)
			}
		}
		bad := 0
		for _, i := range idx {
			if i%fullWidth == 0 || i == idx[0] {
				// One authenticated read for the whole level-0 tile (every
				// complete subtree inside it) instead of one per proof.
				if err := thr.warm(i/fullWidth, cp.size); err != nil {
					c.fail("reading the tiles of entry %d: %v", i, err)
					return
				}
			}
			var data []byte
			if haveLeaves {
				data = leaves[i]
			} else {
				d, err := c.entry(i, cp.size)
				if err != nil {
					c.fail("entry %d: %v", i, err)
					bad++
					continue
				}
				data = d
			}
			p, err := tlog.ProveRecord(cp.size, i, thr)
			if err != nil {
				c.fail("tlog.ProveRecord(%d, %d): %v", cp.size, i, err)
				bad++
				if bad > 10 {
					break
				}
				continue
			}
			if err := tlog.CheckRecord(p, cp.size, cp.hash, i, tlog.RecordHash(data)); err != nil {
				c.fail("tlog.CheckRecord entry %d: %v", i, err)
				bad++
				if bad > 10 {
					break
				}
			}
		}
		if bad == 0 {
			okf("inclusion of %d entries: tlog.ProveRecord + tlog.CheckRecord against the checkpoint", len(idx))
		}
	}

	// 5. Consistency.
	for _, m := range oldSizes {
		if m > cp.size {
			c.fail("-old %d is larger than the tree (%d)", m, cp.size)
			continue
		}
		if m == 0 {
			okf("consistency from size 0: nothing to prove")
			continue
		}
		oh, err := tlog.TreeHash(m, thr)
		if err != nil {
			c.fail("tree hash of size %d: %v", m, err)
			continue
		}
		c.consistency(m, oh, cp, thr, "from the tiles")
	}
	for _, file := range oldNotes {
		b, err := os.ReadFile(file)
		if err != nil {
			c.fail("-old-checkpoint: %v", err)
			continue
		}
		_, old, err := openCheckpoint(b, logV, nil)
		if err != nil {
			c.fail("-old-checkpoint %s: %v", file, err)
			continue
		}
		if old.origin != cp.origin {
			c.fail("-old-checkpoint %s: origin %q, current %q", file, old.origin, cp.origin)
			continue
		}
		if old.size > cp.size {
			c.fail("-old-checkpoint %s: size %d is larger than the current %d (the log shrank?)", file, old.size, cp.size)
			continue
		}
		if old.size == 0 {
			okf("consistency from the empty checkpoint %s: nothing to prove", file)
			continue
		}
		c.consistency(old.size, old.hash, cp, thr, "signed checkpoint "+file)
	}
}

func (c *checker) consistency(m int64, oldHash tlog.Hash, cp checkpoint, thr tlog.HashReader, what string) {
	if m == cp.size {
		if oldHash != cp.hash {
			c.fail("consistency: size %d has root %s (%s), the checkpoint %s", m, oldHash, what, cp.hash)
		} else {
			okf("consistency: size %d (%s) is the checkpoint itself, same root", m, what)
		}
		return
	}
	p, err := tlog.ProveTree(cp.size, m, thr)
	if err != nil {
		c.fail("tlog.ProveTree(%d, %d): %v", cp.size, m, err)
		return
	}
	if err := tlog.CheckTree(p, cp.size, cp.hash, m, oldHash); err != nil {
		c.fail("tlog.CheckTree %d -> %d (%s): %v", m, cp.size, what, err)
		return
	}
	okf("consistency %d -> %d (%s, root %s): tlog.ProveTree + tlog.CheckTree, %d hashes", m, cp.size, what, oldHash, len(p))
}

// entry fetches entry i from its bundle (used when the audit is skipped).
func (c *checker) entry(i, size int64) ([]byte, error) {
	t := tlog.Tile{H: tileHeight, L: -1, N: i / fullWidth, W: fullWidth}
	if rest := size - t.N*fullWidth; rest < fullWidth {
		t.W = int(rest)
	}
	es, ok := c.bundles[t.N]
	if !ok {
		data, err := c.f.readTile(t)
		if err != nil {
			return nil, err
		}
		if es, err = parseBundle(data, t.W); err != nil {
			return nil, err
		}
		c.bundles[t.N] = es
	}
	return es[i%fullWidth], nil
}

// audit fetches every tile and bundle of the tree and checks them against each
// other and the checkpoint, without x/mod's tile authentication. It fills
// leaves and reports whether all entries were read.
func (c *checker) audit(cp checkpoint, leaves [][]byte) bool {
	f := c.f
	tiles := tilesOf(cp.size)
	type key struct {
		l int
		n int64
	}
	data := map[key][]byte{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	errs := map[string]error{}
	for _, t := range tiles {
		for _, level := range []int{t.L, -1} {
			if level == -1 && t.L != 0 {
				continue
			}
			tt := t
			tt.L = level
			wg.Add(1)
			go func(tt tlog.Tile) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				p, _ := c2spPath(tt)
				b, err := f.readTile(tt)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs[p] = err
					return
				}
				data[key{tt.L, tt.N}] = b
			}(tt)
		}
	}
	wg.Wait()
	var paths []string
	for p := range errs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		c.fail("audit: %v", errs[p])
	}
	levels := 0
	for _, t := range tiles {
		if t.L+1 > levels {
			levels = t.L + 1
		}
	}

	allLeaves := len(errs) == 0
	bad := len(c.failures)
	var leafHashes []tlog.Hash
	for _, t := range tiles {
		p, _ := c2spPath(t)
		b, ok := data[key{t.L, t.N}]
		if !ok {
			continue
		}
		if len(b) != t.W*tlog.HashSize {
			c.fail("audit: %s is %d bytes, want %d (%d hashes of 32 bytes)", p, len(b), t.W*tlog.HashSize, t.W)
			allLeaves = allLeaves && t.L != 0
			continue
		}
		hs := splitHashes(b)
		if t.L == 0 {
			ep, _ := c2spPath(tlog.Tile{H: t.H, L: -1, N: t.N, W: t.W})
			eb, ok := data[key{-1, t.N}]
			if !ok {
				allLeaves = false
				continue
			}
			es, err := parseBundle(eb, t.W)
			if err != nil {
				c.fail("audit: %s: %v", ep, err)
				allLeaves = false
				continue
			}
			for i, e := range es {
				idx := t.N*fullWidth + int64(i)
				leaves[idx] = e
				if lh := leafHash(e); lh != hs[i] {
					c.fail("audit: entry %d (%s #%d) hashes to %s, %s #%d holds %s", idx, ep, i, lh, p, i, hs[i])
				}
			}
			leafHashes = append(leafHashes, hs...)
			continue
		}
		// Level L >= 1: hash i is the root of full tile (N*256 + i) at level L-1.
		for i, h := range hs {
			child := t.N*fullWidth + int64(i)
			cb, ok := data[key{t.L - 1, child}]
			if !ok || len(cb) != fullWidth*tlog.HashSize {
				continue // failure already reported
			}
			if r := mth(splitHashes(cb)); r != h {
				cp, _ := c2spPath(tlog.Tile{H: t.H, L: t.L - 1, N: child, W: fullWidth})
				c.fail("audit: %s #%d is %s, the root of %s is %s", p, i, h, cp, r)
			}
		}
	}
	if len(c.failures) == bad {
		okf("audit: %d tiles on %d level(s) and %d entry bundles: sizes, uint16 entry framing, leaf hashes, level links", len(tiles), levels, countLevel0(tiles))
	}

	// Root from the entries alone, with this program's own RFC 6962 code.
	if int64(len(leafHashes)) == cp.size {
		if r := mth(leafHashes); r != cp.hash {
			c.fail("audit: the RFC 6962 root of the %d leaf hashes is %s, the checkpoint says %s", cp.size, r, cp.hash)
		} else {
			okf("audit: RFC 6962 root of the %d entries (own code) = checkpoint root", cp.size)
		}
	}

	// tlog.TreeHash over the unauthenticated tiles.
	raw := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			t := tlog.TileForIndex(tileHeight, x)
			// the tile actually served: full, or the partial one of the tree
			atLevel := cp.size >> (tileHeight * uint(t.L))
			t.W = fullWidth
			if (t.N+1)*fullWidth > atLevel {
				t.W = int(atLevel - t.N*fullWidth)
			}
			b, ok := data[key{t.L, t.N}]
			if !ok {
				return nil, fmt.Errorf("tile %d/%d not fetched", t.L, t.N)
			}
			h, err := tlog.HashFromTile(t, b, x)
			if err != nil {
				return nil, err
			}
			out[i] = h
		}
		return out, nil
	})
	if th, err := tlog.TreeHash(cp.size, raw); err != nil {
		c.fail("audit: tlog.TreeHash over the raw tiles: %v", err)
	} else if th != cp.hash {
		c.fail("audit: tlog.TreeHash over the raw tiles = %s, checkpoint root %s", th, cp.hash)
	} else {
		okf("audit: tlog.TreeHash over the unauthenticated tiles = checkpoint root")
	}
	return allLeaves && int64(len(leafHashes)) == cp.size
}

func countLevel0(ts []tlog.Tile) int {
	n := 0
	for _, t := range ts {
		if t.L == 0 {
			n++
		}
	}
	return n
}
