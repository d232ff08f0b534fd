package w2

import (
	"hash/fnv"
	"math"
	"strconv"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Dims is the embedding size of amazon.titan-embed-text-v2 in the seed.
const Dims = 1024

// Chunking: the seed chunks with a fixed length of 64 tokens and an overlap
// of 8. Without a tokenizer the examples approximate a token by a character
// (rune): chunks of ChunkLen runes, each starting ChunkLen-Overlap runes after
// the previous one; the last chunk may be shorter.
const (
	ChunkLen = 64
	Overlap  = 8
)

// Chunks splits text into fixed-length overlapping chunks of runes.
func Chunks(text string, size, overlap int) []string {
	rs := []rune(text)
	var out []string
	for start := 0; ; start += size - overlap {
		end := min(start+size, len(rs))
		out = append(out, string(rs[start:end]))
		if end == len(rs) {
			return out
		}
	}
}

// Embedding stands in for Titan: a deterministic bag of hashed character
// n-grams (1, 2 and 3 runes) in Dims dimensions, L2-normalised.
//
// Each n-gram is hashed (FNV-1a) to a dimension. Its weight
// depends on its length and on what it is made of: n-grams of hiragana only
// are mostly particles and inflections (を, して, しい) and weigh little;
// n-grams with kanji, katakana or Latin letters carry the meaning and weigh
// more. Hash collisions only ever add similarity (no signs), so unrelated
// texts score close to 1 and never above it. N-grams containing
// punctuation or spaces are skipped. With these weights the seed's query
// 「謎を解決してほしい」 ranks the chunks of the two detective stories
// (謎, 解決, ナゾ) above ONE PIECE, as Titan did in the article.
func Embedding(text string) []float32 {
	v := make([]float64, Dims)
	rs := []rune(normalise(text))
	for n := 1; n <= 3; n++ {
		for i := 0; i+n <= len(rs); i++ {
			w := gramWeight(rs[i : i+n])
			if w == 0 {
				continue
			}
			h := fnv.New64a()
			h.Write([]byte(string(rs[i : i+n])))
			x := h.Sum64()
			v[x%Dims] += w
		}
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, Dims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// lengthWeight is the weight of 1-, 2- and 3-grams and kanaOnlyFactor
// scales n-grams of hiragana only. They were tuned on the seed's data (a
// small grid search maximising the distance between the fifth detective
// chunk and the best ONE PIECE chunk in both chunk layouts): single
// characters and pairs carry the matches (謎, 解決), triples add a little
// context, and particles almost nothing.
var lengthWeight = [4]float64{0, 3, 3, 0.25}

const kanaOnlyFactor = 0.05

// gramWeight is the weight of one n-gram (0: skipped).
func gramWeight(g []rune) float64 {
	kanaOnly := true
	for _, r := range g {
		switch {
		case unicode.Is(unicode.Hiragana, r) || r == 'ー':
		case unicode.Is(unicode.Han, r), unicode.Is(unicode.Katakana, r), unicode.IsLetter(r), unicode.IsDigit(r):
			kanaOnly = false
		default:
			return 0 // punctuation, symbols, spaces
		}
	}
	w := lengthWeight[len(g)]
	if kanaOnly {
		w *= kanaOnlyFactor
	}
	return w
}

// normalise folds full-width ASCII to half-width and lowercases Latin
// letters, so "ONE" and "ＯＮＥ" embed alike.
func normalise(s string) string {
	rs := []rune(s)
	for i, r := range rs {
		if r >= '！' && r <= '～' {
			r = r - '！' + '!'
		}
		rs[i] = unicode.ToLower(r)
	}
	return string(rs)
}

// Cosine is DynamoDB's COSINE score of two vectors: 1 - cos θ (0 identical,
// 2 opposite; lower is better).
func Cosine(a, b []float32) float64 {
	var dot, aa, bb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	if aa == 0 || bb == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(aa*bb)
}

// VectorAV is an embedding as a DynamoDB list of numbers.
func VectorAV(v []float32) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: VectorList(v)}
}

// VectorList is an embedding as a SearchVector.
func VectorList(v []float32) []types.AttributeValue {
	l := make([]types.AttributeValue, len(v))
	for i, x := range v {
		l[i] = &types.AttributeValueMemberN{Value: strconv.FormatFloat(float64(x), 'g', -1, 32)}
	}
	return l
}

// Query is the seed's search question.
const Query = "謎を解決してほしい"

// ParentLen is the size in runes of a small-to-big parent (the answer text).
const ParentLen = 128
