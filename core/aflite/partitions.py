"""Partitions: which m training sets each filtering phase uses (paper 000, Algorithm 1).

The rows are dealt once, from the seed alone, into fixed blocks of about t/32 rows
(at least min(128, t/8)); a block shrinks as its rows are removed. Phase j draws,
from a generator seeded by (random_state, j), a random block order per partition;
each of the m training sets (S \\ T_j in the paper) takes whole blocks in that order
while they fit in t, then t − (rows taken) random members of the next block: exactly
t examples of S_j, and a function of (random_state, j, S_j) only. In phase 0 every
training set is a uniformly random t-subset of D, as in Algorithm 1; the one
difference from fully independent draws is that rows of the same block (at most
t/8 rows; about t/32 for t ≥ 4096) enter or leave a training set together. The blocks
are what make the ridge family fast: its per-block Gram matrices are built once per
fit and downdated by the removed rows, so a phase never re-reads S for them. All
families use the same plan.
"""
from __future__ import annotations

import numpy as np

__all__ = ["Blocks", "Plan", "block_size", "partition_plan", "phase_rng", "tiebreak"]

BLOCKS_PER_TRAIN = 32          # blocks per training set (speed/memory balance)
BLOCK_GRAM_BYTES = 256 << 20   # cap on the per-phase block Gram matrices


def block_size(N: int, t: int, d_gram: int) -> int:
    """Rows per block: about t/32, but at least min(128, t/8).

    Much smaller blocks make the per-block products slow; >= 8 blocks per training
    set keep the partitions close to independent draws. The number of blocks is
    capped so the block Gram matrices (d_gram² floats each) fit the memory budget.
    """
    size = max(1, -(-t // BLOCKS_PER_TRAIN))
    if size < 128:
        size = max(size, min(128, -(-t // 8)))
    max_blocks = max(8, BLOCK_GRAM_BYTES // (4 * d_gram * d_gram))
    return max(size, -(-N // max_blocks))


class Blocks:
    """A fixed assignment of the N rows to blocks of ``size`` rows, from the seed alone.

    Rows keep their block for the whole fit; a block shrinks as its rows are removed.
    """

    def __init__(self, seed: int, N: int, size: int):
        rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0xB10C]))
        self.block_of = np.empty(N, dtype=np.int64)
        self.block_of[rng.permutation(N)] = np.arange(N) // size
        self.size = size
        self.n_blocks = -(-N // size)
        # The same numbers in the narrowest integer type: a stable sort of 16-bit keys is a
        # radix sort, 4-5x faster than on int64 (the plan sorts S_j by block every phase).
        self.sort_key = self.block_of.astype(np.int16 if self.n_blocks <= np.iinfo(np.int16).max else np.int32)


class Plan:
    """The m training sets of one phase over S_j (positions into S_j, ascending rows).

    Partition p trains on every member of the blocks with ``full[b, p]`` plus the
    positions ``partial[p]`` (drawn from one more block), exactly t in all.
    """

    def __init__(self, blk, full, partial, by_block, starts):
        self.blk, self.full, self.partial = blk, full, partial
        self._by_block, self._starts = by_block, starts
        self._pairs = None

    @classmethod
    def of_training_sets(cls, n: int, sets) -> "Plan":
        """A plan over n positions whose m training sets are given (positions, any order) rather
        than drawn from blocks: for a caller that draws them itself (cues across splits train on
        one split and score the other, `core.dynamics.transfer`)."""
        partial = [np.sort(np.asarray(s, dtype=np.int64)) for s in sets]
        return cls(np.zeros(n, dtype=np.int64), np.zeros((1, len(partial)), dtype=bool), partial, np.arange(n),
                   np.array([0, n]))

    def members(self, b: int) -> np.ndarray:
        """The positions of block b's members in S_j (ascending)."""
        return self._by_block[self._starts[b]:self._starts[b + 1]]

    def pairs(self, lo: int, hi: int):
        """The partial memberships of positions lo..hi-1: (positions, partitions), by position.
        A partition's partial block is never one of its whole blocks, so these are exactly the
        (position, partition) pairs in training that ``full`` alone calls held out."""
        if self._pairs is None:
            pos = np.concatenate(self.partial) if self.partial else np.empty(0, np.int64)
            part = np.repeat(np.arange(len(self.partial)), [len(p) for p in self.partial])
            order = np.argsort(pos)
            self._pairs = pos[order], part[order]
        pos, part = self._pairs
        a, b = np.searchsorted(pos, [lo, hi])
        return pos[a:b], part[a:b]

    def in_train(self, lo: int, hi: int) -> np.ndarray:
        """(hi-lo, m) bool: is position pos of S_j in partition p's training set."""
        out = self.full[self.blk[lo:hi]]
        pos, part = self.pairs(lo, hi)
        out[pos - lo, part] = True
        return out

    def n_held(self) -> np.ndarray:
        """Per position of S_j, how many of the m partitions hold it out (int64)."""
        m = self.full.shape[1]
        held = m - np.count_nonzero(self.full, axis=1)[self.blk]
        pos, _ = self.pairs(0, len(self.blk))
        return held - np.bincount(pos, minlength=len(self.blk))

    def train_positions(self, p: int) -> np.ndarray:
        whole = np.flatnonzero(self.full[self.blk, p])
        return np.sort(np.concatenate([whole, self.partial[p]]))


def partition_plan(blocks: Blocks, S: np.ndarray, t: int, m: int, rng: np.random.Generator) -> Plan:
    """Phase j's partitions: a function of (seed, j, S_j) only, hence the exact trajectory.

    Each training set takes whole blocks in a random order while they fit in t, then
    t − (rows taken) random members of the next block.
    """
    B = blocks.n_blocks
    blk = blocks.block_of[S]
    counts = np.bincount(blk, minlength=B)
    by_block = np.argsort(blocks.sort_key[S], kind="stable")  # positions grouped by block
    starts = np.concatenate([[0], np.cumsum(counts)])
    order = np.argsort(rng.random((m, B)), axis=1)             # a random block order per partition
    cum = np.cumsum(counts[order], axis=1)
    n_whole = (cum <= t).sum(axis=1)
    full = np.zeros((B, m), dtype=bool)
    partial = []
    for p in range(m):
        q = int(n_whole[p])
        full[order[p, :q], p] = True
        taken = int(cum[p, q - 1]) if q else 0
        pos = np.empty(0, dtype=np.int64)
        if taken < t:
            b = order[p, q]
            members = by_block[starts[b]:starts[b + 1]]
            pos = np.sort(rng.choice(members, size=t - taken, replace=False))
        partial.append(pos)
    return Plan(blk, full, partial, by_block, starts)


def phase_rng(seed: int, phase: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), 0x5AF1, int(phase)]))


def tiebreak(seed: int, N: int) -> np.ndarray:
    """A fixed random rank per example (from the seed alone) to break score ties."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 0x71E]))
    u = np.empty(N, dtype=np.int64)
    u[rng.permutation(N)] = np.arange(N)
    return u
