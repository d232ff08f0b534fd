// Package vector is the vector index engine behind DynamoDB vector indexes
// (CreateTable VectorIndexes, SearchVectors).
//
// An Index holds float32 vectors of one fixed dimension under engine-assigned
// 64-bit IDs, together with small filterable attributes (the HASH partition
// value and the INLINE_FILTER attributes of the index's SearchSchema). It
// answers k-nearest-neighbour queries with an HNSW graph (Malkov & Yashunin,
// "Efficient and robust approximate nearest neighbor search using Hierarchical
// Navigable Small World graphs") and falls back to an exact scan when that is
// cheaper or more accurate: for small indexes (Config.ExactMax) and for
// selective filters (Config.FilterExactMax).
//
// # Scores
//
// Scores follow SearchVectors:
//
//   - COSINE: cosine distance 1 − cos(q, v), 0 (same direction) … 2 (opposite),
//     ascending. Vectors are stored L2-normalised, so the search is a dot product.
//     A zero vector has cosine similarity 0 with everything (distance 1).
//   - EUCLIDEAN: the plain (not squared) Euclidean distance ‖q − v‖, ascending.
//     The AWS API reference says the scores "represent the Euclidean distance
//     between vectors" and the developer guide calls it the straight-line
//     distance, so the square root is reported. Internally the graph ranks by
//     squared distance (same order) and the final k scores are recomputed exactly.
//   - DOT_PRODUCT: the inner product q·v, descending (higher is better).
//
// Results are always sorted best first.
//
// # Storage layout
//
// Vectors live in chunked slabs (1,024 vectors per chunk, contiguous within a
// chunk) so growth never copies existing vectors. Layer-0 adjacency is a
// fixed-size array of 2·M uint32 neighbours per node in the same chunking;
// upper layers (about 1/M of the nodes) use one flat slab addressed by a
// per-node offset. There are no per-node pointers. Dot products use gonum's
// blas32 (SSE assembly), which reaches memory bandwidth on scans.
//
// # Quantisation (optional)
//
// With Config.Quantization = QuantSQ8 each vector also gets one uint8 code
// per dimension (same chunking as the vectors): dimension i is approximated
// by lo[i] + step[i]·code. The ranges are trained once, from the first
// Config.QuantTrain vectors (default 4,096; min/max widened by 1/16 of the
// range on both sides), and never move afterwards: later vectors are encoded
// with them and clamped, because moving a range would mean re-encoding every
// vector. Until then the index is small and searches use the float32 vectors.
// Graph traversal (searches and the construction searches of inserts)
// compares the query, turned into int16 weights, with the codes: an AVX2
// kernel where the CPU has it (detected at start-up), an unrolled Go loop
// otherwise. All ef candidates found are then re-scored with the float32
// vectors and the best k returned, so scores are always exact; quantisation
// can only change which candidates are found. Inserts select neighbours on
// exact distances. Memory grows by one byte per dimension per vector (the
// float32 vectors stay for re-scoring). The trained ranges are part of the
// snapshot; codes are re-derived on load. SetQuantization switches an
// existing index.
//
// # Filters
//
// A Filter restricts results to nodes whose partition value and INLINE_FILTER
// attributes equal the given values. (name, value) pairs are interned and each
// has a posting list. When the smallest posting list is short (or the filter is
// selective enough that graph search would visit more nodes than the list
// holds) the search is an exact scan of that list. Otherwise the filter is
// applied during graph traversal: non-matching nodes are still expanded, but
// only matching nodes enter the result set, and the search does not stop
// before it holds ef matches, so a selective filter still returns k results.
//
// # Deletes
//
// Delete tombstones the node (its vector and links stay, so the graph remains
// navigable) and immediately repairs the adjacency of the node's out-neighbours
// with the neighbour-selection heuristic, which removes nearly all edges into
// it. When tombstones exceed a quarter of the nodes, the index is compacted:
// tombstoned nodes are dropped, nodes are renumbered, and lists that lost a
// neighbour are refilled from their two-hop neighbourhood. Compact can also be
// called explicitly.
//
// # Concurrency
//
// Any number of searches run concurrently. Writers are serialised; an insert
// computes its neighbour lists under the read lock (searches continue) and
// takes the write lock only to publish them. AddBatch computes several
// inserts' neighbour lists at once (a bulk build on several cores), then
// publishes them in order, recomputing any list another insert of the round
// changed meanwhile.
//
// # Persistence
//
// WriteTo/ReadFrom (and Load) stream a compact little-endian snapshot of the
// vectors, graph, IDs, attributes and SQ8 ranges, protected by CRC-32C
// checksums. A corrupt or truncated snapshot yields an error, never a panic.
// Freeze takes a point-in-time view for a snapshot while writes continue: it
// copies the small per-node arrays writers change in place (tombstones,
// levels, offsets, upper-layer links), shares the append-only vector chunks,
// and shares the layer-0 link chunks copy-on-write (a writer copies a chunk
// a view still holds before changing it), so writers wait only for the small
// copy (2.6 ms at 1M nodes).
package vector
