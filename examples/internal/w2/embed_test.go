package w2

import (
	"sort"
	"strings"
	"testing"
)

// TestEmbeddingRanksDetectivesFirst checks the embedding offline: for the
// seed's query, the best chunks belong to the two detective stories.
func TestEmbeddingRanksDetectivesFirst(t *testing.T) {
	type hit struct {
		doc, text string
		score     float64
	}
	q := Embedding(Query)
	for _, layout := range []struct {
		name   string
		chunks func(Narration) []string
	}{
		{"chunks", func(n Narration) []string { return Chunks(n.Text, ChunkLen, Overlap) }},
		{"small-to-big children", func(n Narration) []string {
			var cs []string
			for _, p := range Chunks(n.Text, ParentLen, 0) {
				cs = append(cs, Chunks(p, ChunkLen, Overlap)...)
			}
			return cs
		}},
	} {
		var hits []hit
		for _, n := range Narrations {
			for _, c := range layout.chunks(n) {
				hits = append(hits, hit{n.Key, c, Cosine(q, Embedding(c))})
			}
		}
		sort.Slice(hits, func(i, j int) bool { return hits[i].score < hits[j].score })
		seen := map[string]bool{}
		for i, h := range hits {
			t.Logf("%s #%d %.6f %s %s", layout.name, i+1, h.score, h.doc, h.text)
			if i < 5 {
				seen[h.doc] = true
				if strings.HasPrefix(h.doc, "onepiece") {
					t.Errorf("%s: ONE PIECE ranked #%d", layout.name, i+1)
				}
			}
		}
		if !seen["conan-opening"] || !seen["precure-detective-intro"] {
			t.Errorf("%s: top 5 lacks a detective story: %v", layout.name, seen)
		}
	}
}
