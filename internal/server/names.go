package server

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// The folder (or TiKV store) name of a per-credential database is
//
//	enc(access key ID) + "_" + enc(region)
//
// where enc keeps ASCII letters, digits and '-' and writes every other
// byte as '%' and two upper-case hex digits. enc never writes '_', so the
// one '_' splits a name back into its two parts, and percent-encoding is
// injective: two keys or regions never share a folder (the old mapping
// turned every other byte into '_', so "a%2Fb" and "a_2Fb" did). A name
// longer than maxFolderName is replaced by "sha256-" and the hex SHA-256 of
// the key, a NUL and the region; such a name has no '_', and neither has
// sharedKey, so none of them meets an encoded name. Keys and regions made
// of letters, digits and '-' only (every AWS access key ID and region)
// keep the name older Kuras gave them. Folder names compare by case on
// Linux; on a case-insensitive filesystem (macOS, Windows) keys that differ
// only in case share a folder.
const maxFolderName = 200

// folderName is the database name of an access key ID and region.
func folderName(akid, region string) string {
	name := encodeName(akid) + "_" + encodeName(region)
	if len(name) <= maxFolderName {
		return name
	}
	sum := sha256.Sum256([]byte(akid + "\x00" + region))
	return "sha256-" + hex.EncodeToString(sum[:])
}

// parseFolderName inverts folderName; ok is false for hashed names,
// sharedKey and anything folderName does not write.
func parseFolderName(name string) (akid, region string, ok bool) {
	a, r, found := strings.Cut(name, "_")
	if !found || strings.Contains(r, "_") {
		return "", "", false
	}
	akid, ok1 := decodeName(a)
	region, ok2 := decodeName(r)
	if !ok1 || !ok2 || encodeName(akid) != a || encodeName(region) != r {
		return "", "", false
	}
	return akid, region, true
}

// isDatabaseFolder reports whether a folder of the data directory is
// named as a database is: sharedKey, folderName's, or an older Kura's
// name (letters, digits, '-' and '_').
func isDatabaseFolder(name string) bool {
	if name == sharedKey || strings.HasPrefix(name, "sha256-") {
		return true
	}
	if _, _, ok := parseFolderName(name); ok {
		return true
	}
	return name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == ""
}

func plainNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

func encodeName(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; plainNameByte(c) {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

func decodeName(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", false
		}
		v, err := hex.DecodeString(s[i+1 : i+3])
		if err != nil {
			return "", false
		}
		b.WriteByte(v[0])
		i += 2
	}
	return b.String(), true
}

// legacyFolderName is the name Kura gave the database of an access key ID
// and region before folderName: each byte other than a letter, digit or
// '-' replaced by '_', each part cut to 128 bytes. adoptLegacyFolder
// renames such a folder when the database is first opened; a folder two
// keys shared under the old mapping goes to the first of them to be used.
func legacyFolderName(akid, region string) string {
	return legacyPart(akid) + "_" + legacyPart(region)
}

func legacyPart(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !plainNameByte(c) {
			b[i] = '_'
		}
	}
	if len(b) > 128 {
		b = b[:128]
	}
	return string(b)
}
