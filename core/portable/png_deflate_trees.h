/* zlib's Huffman trees (RFC 1951 3.2.5-3.2.7, as zlib's trees.c builds them) for the device
 * deflate's block stage (png_deflate.h, HC_DFL_BLOCK) and for the host's own Z_RLE deflate
 * (core/png/zlib_rle.cpp, which runs them on one lane): the code arithmetic of lengths,
 * distances and fixed codes, the heap, code lengths with zlib's repair of long codes, the
 * codes, the tree description, the choice of stored, fixed or dynamic block, and the code of
 * each symbol. The heap's merges are one work-item's; the rest is shared among the lanes.
 * C++, CUDA and OpenCL C. */
#ifndef HETCODEC_PORTABLE_PNG_DEFLATE_TREES_H
#define HETCODEC_PORTABLE_PNG_DEFLATE_TREES_H

#include "core/portable/png_deflate_plan.h"

#define HC_DFL_L_CODES 286
#define HC_DFL_D_CODES 30
#define HC_DFL_BL_CODES 19
#define HC_DFL_HEAP (2 * HC_DFL_L_CODES + 1)
#define HC_DFL_MAX_BITS 15

/* ---- helpers ---------------------------------------------------------------------------- */

HC_FN hc_u32 hc_dfl_run_symbols(hc_u32 run) {
  /* (r from q rather than rest % 258: a division and a remainder of the same operands become
   * an LLVM `freeze`, which Oclgrind's uninitialised-value tracking cannot follow) */
  const hc_u32 rest = run - 1u, q = rest / 258u, r = rest - 258u * q;
  return 1u + q + (r >= 3u ? 1u : r);
}

/* Length code (0..28) of a match of length l + 3, its extra bits and their base. */
HC_FN hc_u32 hc_dfl_length_code(hc_u32 l) {
  hc_u32 e = 0;
  if (l == 255u) return 28u;
  if (l < 8u) return l;
  while ((l >> (e + 3u)) != 0u) ++e; /* l in [8 << (e-1)... ) */
  /* l has e + 3 significant bits: e extra bits */
  return 4u * (e + 1u) + ((l >> e) & 3u);
}
HC_FN hc_u32 hc_dfl_length_extra(hc_u32 c) { return (c < 8u || c == 28u) ? 0u : c / 4u - 1u; }
HC_FN hc_u32 hc_dfl_length_base(hc_u32 c) {
  if (c < 8u) return c;
  if (c == 28u) return 255u;
  return (4u + (c & 3u)) << (c / 4u - 1u);
}
HC_FN hc_u32 hc_dfl_dist_extra(hc_u32 c) { return c < 4u ? 0u : c / 2u - 1u; }
HC_FN hc_u32 hc_dfl_bl_extra(hc_u32 c) {
  return c == 16u ? 2u : c == 17u ? 3u : c == 18u ? 7u : 0u;
}
/* The code-length code's transmission order 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, ... */
HC_FN hc_u32 hc_dfl_bl_order(hc_u32 k) {
  return k < 3u ? 16u + k : k == 3u ? 0u : (k & 1u) ? 7u - (k - 5u) / 2u : 8u + (k - 4u) / 2u;
}
/* The low `len` bits of code (len 0..16) in reverse order: each byte reversed by the
 * multiply-and-mask method (64-bit), then the bytes swapped. (The shift-and-mask form compiles
 * to LLVM's bitreverse intrinsic, which Oclgrind does not implement.) */
HC_FN hc_u32 hc_dfl_reverse8(hc_u32 b) {
  return (hc_u32)(((((hc_u64)b * 0x0802u) & 0x22110u) | (((hc_u64)b * 0x8020u) & 0x88440u)) *
                      0x10101u >>
                  16) &
         0xFFu;
}
HC_FN hc_u32 hc_dfl_reverse(hc_u32 code, hc_u32 len) {
  const hc_u32 r = (hc_dfl_reverse8(code & 0xFFu) << 8) | hc_dfl_reverse8((code >> 8) & 0xFFu);
  return r >> (16u - len);
}
/* The fixed literal/length code of symbol n: length, and the code as sent (bit-reversed). */
HC_FN hc_u32 hc_dfl_fixed_len(hc_u32 n) {
  return n < 144u ? 8u : n < 256u ? 9u : n < 280u ? 7u : 8u;
}
HC_FN hc_u32 hc_dfl_fixed_code(hc_u32 n) {
  if (n < 144u) return hc_dfl_reverse(0x30u + n, 8u);
  if (n < 256u) return hc_dfl_reverse(0x190u + (n - 144u), 9u);
  if (n < 280u) return hc_dfl_reverse(n - 256u, 7u);
  return hc_dfl_reverse(0xC0u + (n - 280u), 8u);
}

/* ---- zlib's trees -------------------------------------------------------------------------- */

/* A tree's arrays, in hc_dfl_state (each tree sized for its codes, so that the block stage's
 * scratch stays small). */
typedef struct {
  HC_LOCAL hc_u32* freq;
  HC_LOCAL hc_u16* len; /* one more than the nodes: scan_tree's guard */
  HC_LOCAL hc_u16* code;
  HC_LOCAL hc_u16* dad;
  hc_i32 max_code;
} hc_dfl_tree;

#define HC_DFL_D_HEAP (2 * HC_DFL_D_CODES + 1)
#define HC_DFL_BL_HEAP (2 * HC_DFL_BL_CODES + 1)
typedef struct {
  hc_dfl_tree l, d, bl;
  hc_u32 l_freq[HC_DFL_HEAP], d_freq[HC_DFL_D_HEAP], bl_freq[HC_DFL_BL_HEAP];
  hc_u16 l_len[HC_DFL_HEAP + 1], d_len[HC_DFL_D_HEAP + 1], bl_len[HC_DFL_BL_HEAP + 1];
  hc_u16 l_code[HC_DFL_HEAP], d_code[HC_DFL_D_HEAP], bl_code[HC_DFL_BL_HEAP];
  hc_u16 l_dad[HC_DFL_HEAP], d_dad[HC_DFL_D_HEAP], bl_dad[HC_DFL_BL_HEAP];
  /* zlib's heap of nodes, each entry the node's sort key (frequency << 5 | depth: zlib's
   * smaller() is key <= key) above the node number (10 bits), so that comparisons read the
   * heap only; the entry past the last is HC_DFL_NO_ENTRY. A block's frequencies sum to at
   * most 16386, so a subtree is at most 22 deep. */
  hc_u32 heap[HC_DFL_HEAP + 1];
  hc_u32 bl_count[HC_DFL_MAX_BITS + 1], next_code[HC_DFL_MAX_BITS + 1];
  hc_i32 heap_len, heap_max;
  hc_u64 opt_len, static_len;
  /* the depth of every node, by pointer jumping: ancestors and distances, two copies */
  hc_u16 anc[2][HC_DFL_HEAP];
  hc_u8 dep[2][HC_DFL_HEAP];
  /* the lanes' partial sums */
  hc_u64 part_a[HC_DFL_BLOCK_LANES], part_b[HC_DFL_BLOCK_LANES];
  hc_u32 part_c[HC_DFL_BLOCK_LANES];
  hc_u32 bytes, type, max_blindex;
} hc_dfl_state;

HC_FN void hc_dfl_state_init(HC_LOCAL hc_dfl_state* z) {
  z->l.freq = z->l_freq;
  z->l.len = z->l_len;
  z->l.code = z->l_code;
  z->l.dad = z->l_dad;
  z->d.freq = z->d_freq;
  z->d.len = z->d_len;
  z->d.code = z->d_code;
  z->d.dad = z->d_dad;
  z->bl.freq = z->bl_freq;
  z->bl.len = z->bl_len;
  z->bl.code = z->bl_code;
  z->bl.dad = z->bl_dad;
}

#define HC_DFL_NODE(e) ((hc_i32)((e)&0x3FFu))
#define HC_DFL_KEY(e) ((e) >> 10)
#define HC_DFL_NO_ENTRY 0xFFFFFFFFu /* a key above every node's */
HC_FN hc_u32 hc_dfl_entry(hc_u32 freq, hc_u32 depth, hc_i32 node) {
  return (((freq << 5) | depth) << 10) | (hc_u32)node;
}

/* zlib's pqdownheap(). KEY(a) <= KEY(b) is a <= (b | 0x3FF); heap[len + 1] is HC_DFL_NO_ENTRY,
 * so the last parent's missing right child is never taken. */
HC_FN void hc_dfl_downheap(HC_LOCAL hc_u32* heap, hc_i32 len, hc_i32 k) {
  const hc_u32 v = heap[k];
  hc_i32 j = k << 1;
  while (j <= len) {
    hc_u32 hj = heap[j];
    const hc_u32 hj1 = heap[j + 1];
    if (hj1 <= (hj | 0x3FFu)) {
      ++j;
      hj = hj1;
    }
    if (v <= (hj | 0x3FFu)) break;
    heap[k] = hj;
    k = j;
    j <<= 1;
  }
  heap[k] = v;
}

/* kind: 0 literal/length, 1 distance, 2 code-length code (which has no static lengths). */
HC_FN hc_u32 hc_dfl_extra(int kind, hc_i32 n) {
  if (kind == 0) return n >= 257 ? hc_dfl_length_extra((hc_u32)(n - 257)) : 0u;
  if (kind == 1) return hc_dfl_dist_extra((hc_u32)n);
  return hc_dfl_bl_extra((hc_u32)n);
}
HC_FN hc_u32 hc_dfl_static_len(int kind, hc_i32 n) {
  return kind == 0 ? hc_dfl_fixed_len((hc_u32)n) : 5u;
}

/* zlib's gen_bitlen(). A node's length there is its parent's plus one, capped at max_length,
 * which is its depth capped; the nodes deeper than max_length are the overflow. The depths
 * come from pointer jumping over the parent links (five rounds: no tree here is 32 deep); the
 * repair of an overflow walks the heap in zlib's order, on lane 0. */
HC_FN void hc_dfl_gen_bitlen(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, int kind,
                             hc_i32 max_length, hc_u32 lane, hc_u32 lanes) {
  const hc_i32 top = z->heap_max;
  hc_i32 h, bits, round, overflow = 0;
  hc_u64 opt = 0, stat = 0;
  for (h = top + (hc_i32)lane; h < HC_DFL_HEAP; h += (hc_i32)lanes) {
    const hc_i32 n = HC_DFL_NODE(z->heap[h]);
    z->anc[0][n] = (hc_u16)(h == top ? n : t->dad[n]);
    z->dep[0][n] = (hc_u8)(h == top ? 0 : 1);
  }
  for (h = (hc_i32)lane; h <= HC_DFL_MAX_BITS; h += (hc_i32)lanes) z->bl_count[h] = 0;
  HC_BARRIER();
  for (round = 0; round < 5; ++round) {
    const int from = round & 1, to = from ^ 1;
    for (h = top + (hc_i32)lane; h < HC_DFL_HEAP; h += (hc_i32)lanes) {
      const hc_i32 n = HC_DFL_NODE(z->heap[h]), a = z->anc[from][n];
      z->dep[to][n] = (hc_u8)(z->dep[from][n] + z->dep[from][a]);
      z->anc[to][n] = z->anc[from][a];
    }
    HC_BARRIER();
  }
  for (h = top + (hc_i32)lane; h < HC_DFL_HEAP; h += (hc_i32)lanes) {
    const hc_i32 n = HC_DFL_NODE(z->heap[h]), depth = z->dep[1][n];
    hc_u32 xbits;
    hc_u64 f;
    bits = depth;
    if (bits > max_length) {
      bits = max_length;
      ++overflow;
    }
    t->len[n] = (hc_u16)bits;
    if (n > t->max_code) continue; /* not a leaf */
    HC_ATOMIC_ADD_LOCAL(&z->bl_count[bits], 1u);
    xbits = hc_dfl_extra(kind, n);
    f = t->freq[n];
    opt += f * (hc_u64)((hc_u32)bits + xbits);
    if (kind != 2) stat += f * (hc_u64)(hc_dfl_static_len(kind, n) + xbits);
  }
  z->part_a[lane] = opt;
  z->part_b[lane] = stat;
  z->part_c[lane] = (hc_u32)overflow;
  HC_BARRIER();
  if (lane == 0u) {
    hc_u32 i;
    for (i = 0; i < lanes; ++i) {
      z->opt_len += z->part_a[i];
      z->static_len += z->part_b[i];
      if (i) overflow += (hc_i32)z->part_c[i];
    }
    if (overflow > 0) {
      do {
        bits = max_length - 1;
        while (z->bl_count[bits] == 0u) --bits;
        z->bl_count[bits]--;
        z->bl_count[bits + 1] += 2u;
        z->bl_count[max_length]--;
        overflow -= 2;
      } while (overflow > 0);
      h = HC_DFL_HEAP;
      for (bits = max_length; bits != 0; --bits) {
        hc_u32 n = z->bl_count[bits];
        while (n != 0u) {
          const hc_i32 m = HC_DFL_NODE(z->heap[--h]);
          if (m > t->max_code) continue;
          if (t->len[m] != (hc_u32)bits) {
            z->opt_len += ((hc_u64)bits - t->len[m]) * (hc_u64)t->freq[m];
            t->len[m] = (hc_u16)bits;
          }
          --n;
        }
      }
    }
  }
  HC_BARRIER();
}

/* zlib's gen_codes(): the codes of each length in symbol order, from the first code of that
 * length; with enough lanes, one length to a lane. */
HC_FN void hc_dfl_gen_codes(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, hc_u32 lane,
                            hc_u32 lanes) {
  hc_i32 bits, n;
  if (lane == 0u) {
    hc_u32 code = 0;
    z->next_code[0] = 0;
    for (bits = 1; bits <= HC_DFL_MAX_BITS; ++bits) {
      code = (code + z->bl_count[bits - 1]) << 1;
      z->next_code[bits] = code;
    }
  }
  HC_BARRIER();
  if (lanes < HC_DFL_MAX_BITS) {
    if (lane == 0u) {
      for (n = 0; n <= t->max_code; ++n) {
        const hc_u32 len = t->len[n];
        if (len == 0u) continue;
        t->code[n] = (hc_u16)hc_dfl_reverse(z->next_code[len]++, len);
      }
    }
  } else if (lane < HC_DFL_MAX_BITS) {
    const hc_u32 len = lane + 1u;
    hc_u32 next = z->next_code[len];
    for (n = 0; n <= t->max_code; ++n)
      if (t->len[n] == len) t->code[n] = (hc_u16)hc_dfl_reverse(next++, len);
  }
  HC_BARRIER();
}

/* zlib's build_tree(): lane 0 fills the heap and makes the merges, which follow one another;
 * the work-group makes the heap, the lengths and the codes. */
HC_FN void hc_dfl_build_tree(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, hc_i32 elems,
                             int kind, hc_i32 max_length, hc_u32 lane, hc_u32 lanes) {
  HC_LOCAL hc_u32* heap = z->heap;
  hc_i32 n, node, len, level;
  if (lane == 0u) {
    hc_i32 max_code = -1;
    len = 0;
    for (n = 0; n < elems; ++n) {
      if (t->freq[n] != 0u) {
        heap[++len] = hc_dfl_entry(t->freq[n], 0u, n);
        max_code = n;
      } else {
        t->len[n] = 0;
      }
    }
    /* At least two codes of non-zero frequency. */
    while (len < 2) {
      node = max_code < 2 ? ++max_code : 0;
      heap[++len] = hc_dfl_entry(1u, 0u, node);
      t->freq[node] = 1u;
      z->opt_len--;
      if (kind != 2) z->static_len -= hc_dfl_static_len(kind, node);
    }
    heap[len + 1] = HC_DFL_NO_ENTRY;
    t->max_code = max_code;
    z->heap_len = len;
  }
  HC_BARRIER();
  /* zlib makes the heap with pqdownheap from heap_len / 2 down to 1. The subtrees of the
   * parents on one level are apart, and every deeper parent comes before them: a level at a
   * time, its parents on all lanes, gives the same heap. */
  len = z->heap_len;
  level = 1;
  while (level * 2 <= len / 2) level *= 2;
  for (; level >= 1; level /= 2) {
    for (n = level + (hc_i32)lane; n < 2 * level && n <= len / 2; n += (hc_i32)lanes)
      hc_dfl_downheap(heap, len, n);
    HC_BARRIER();
  }
  if (lane == 0u) {
    hc_i32 top = HC_DFL_HEAP;
    node = elems;
    do {
      const hc_u32 en = heap[1];
      hc_u32 em, depth;
      heap[1] = heap[len];
      heap[len--] = HC_DFL_NO_ENTRY;
      hc_dfl_downheap(heap, len, 1);
      em = heap[1];
      heap[--top] = en;
      heap[--top] = em;
      depth = (HC_DFL_KEY(en) & 31u) >= (HC_DFL_KEY(em) & 31u) ? (HC_DFL_KEY(en) & 31u)
                                                               : (HC_DFL_KEY(em) & 31u);
      t->dad[HC_DFL_NODE(en)] = t->dad[HC_DFL_NODE(em)] = (hc_u16)node;
      heap[1] = hc_dfl_entry((HC_DFL_KEY(en) >> 5) + (HC_DFL_KEY(em) >> 5), depth + 1u, node);
      ++node;
      hc_dfl_downheap(heap, len, 1);
    } while (len >= 2);
    heap[--top] = heap[1];
    z->heap_len = len;
    z->heap_max = top;
  }
  HC_BARRIER();
  hc_dfl_gen_bitlen(z, t, kind, max_length, lane, lanes);
  hc_dfl_gen_codes(z, t, lane, lanes);
}

/* zlib's run limits for the code lengths (scan_tree/send_tree). */
HC_FN void hc_dfl_run_limits(hc_i32 curlen, hc_i32 nextlen, hc_i32* max_count, hc_i32* min_count) {
  if (nextlen == 0) {
    *max_count = 138;
    *min_count = 3;
  } else if (curlen == nextlen) {
    *max_count = 6;
    *min_count = 3;
  } else {
    *max_count = 7;
    *min_count = 4;
  }
}

/* A bit writer into a block's header words (not shared). */
typedef struct {
  HC_GLOBAL hc_u32* out;
  hc_u64 acc;
  hc_u32 n, words;
} hc_dfl_hw;

HC_FN void hc_dfl_hw_put(hc_dfl_hw* w, hc_u32 value, hc_u32 len) {
  w->acc |= (hc_u64)value << w->n;
  w->n += len;
  if (w->n >= 32u) {
    if (w->words < HC_DFL_HDR_WORDS) w->out[w->words] = (hc_u32)w->acc;
    w->words++;
    w->acc >>= 32;
    w->n -= 32u;
  }
}

/* zlib's scan_tree() (w null: the code-length code's frequencies) and send_tree() (w: the
 * lengths sent with that code): the code lengths of tree t as runs. */
HC_FN void hc_dfl_tree_runs(HC_LOCAL hc_dfl_state* z, HC_LOCAL hc_dfl_tree* t, hc_dfl_hw* w) {
  hc_i32 n, prevlen = -1, nextlen = t->len[0], count = 0, max_count = 7, min_count = 4;
  HC_LOCAL hc_dfl_tree* bl = &z->bl;
  if (!w) t->len[t->max_code + 1] = 0xFFFFu; /* guard (it stays for send_tree) */
  hc_dfl_run_limits(-1, nextlen, &max_count, &min_count);
  for (n = 0; n <= t->max_code; ++n) {
    const hc_i32 curlen = nextlen;
    nextlen = t->len[n + 1];
    if (++count < max_count && curlen == nextlen) continue;
    if (count < min_count) {
      if (!w) {
        bl->freq[curlen] += (hc_u32)count;
      } else {
        do hc_dfl_hw_put(w, bl->code[curlen], bl->len[curlen]);
        while (--count != 0);
      }
    } else if (curlen != 0) {
      if (curlen != prevlen) {
        if (!w) {
          bl->freq[curlen]++;
        } else {
          hc_dfl_hw_put(w, bl->code[curlen], bl->len[curlen]);
          --count;
        }
      }
      if (!w) {
        bl->freq[16]++;
      } else {
        hc_dfl_hw_put(w, bl->code[16], bl->len[16]);
        hc_dfl_hw_put(w, (hc_u32)(count - 3), 2u);
      }
    } else if (count <= 10) {
      if (!w) {
        bl->freq[17]++;
      } else {
        hc_dfl_hw_put(w, bl->code[17], bl->len[17]);
        hc_dfl_hw_put(w, (hc_u32)(count - 3), 3u);
      }
    } else {
      if (!w) {
        bl->freq[18]++;
      } else {
        hc_dfl_hw_put(w, bl->code[18], bl->len[18]);
        hc_dfl_hw_put(w, (hc_u32)(count - 11), 7u);
      }
    }
    count = 0;
    prevlen = curlen;
    hc_dfl_run_limits(curlen, nextlen, &max_count, &min_count);
  }
}

/* zlib's build_tree() for the literal/length and distance trees, then its build_bl_tree(): the
 * code-length code's frequencies from their lengths, its tree, the last of its lengths to send
 * (z->max_blindex) and the tree description's bits added to z->opt_len. The trees' frequencies
 * are set and z->opt_len and z->static_len are 0 before. */
HC_FN void hc_dfl_build_trees(HC_LOCAL hc_dfl_state* z, hc_u32 lane, hc_u32 lanes) {
  hc_dfl_build_tree(z, &z->l, HC_DFL_L_CODES, 0, HC_DFL_MAX_BITS, lane, lanes);
  hc_dfl_build_tree(z, &z->d, HC_DFL_D_CODES, 1, HC_DFL_MAX_BITS, lane, lanes);
  if (lane == 0u) {
    hc_dfl_tree_runs(z, &z->l, 0);
    hc_dfl_tree_runs(z, &z->d, 0);
  }
  HC_BARRIER();
  hc_dfl_build_tree(z, &z->bl, HC_DFL_BL_CODES, 2, 7, lane, lanes);
  if (lane == 0u) {
    hc_u32 max_blindex;
    for (max_blindex = HC_DFL_BL_CODES - 1; max_blindex >= 3u; --max_blindex)
      if (z->bl.len[hc_dfl_bl_order(max_blindex)] != 0u) break;
    z->opt_len += 3u * ((hc_u64)max_blindex + 1u) + 5u + 5u + 4u;
    z->max_blindex = max_blindex;
  }
}

/* zlib's _tr_flush_block() choice once the trees are built: whether a stored block of `bytes`
 * takes no more room than the codes would (zlib stores it only while those bytes are still in
 * its window, which the caller knows), and otherwise 1, the fixed codes, or 2, the trees. */
HC_FN int hc_dfl_stored_fits(const HC_LOCAL hc_dfl_state* z, hc_u64 bytes) {
  const hc_u64 opt_lenb = (z->opt_len + 3u + 7u) >> 3, static_lenb = (z->static_len + 3u + 7u) >> 3;
  return bytes + 4u <= (static_lenb <= opt_lenb ? static_lenb : opt_lenb);
}
HC_FN hc_u32 hc_dfl_coded_type(const HC_LOCAL hc_dfl_state* z) {
  return (z->static_len + 3u + 7u) >> 3 <= (z->opt_len + 3u + 7u) >> 3 ? 1u : 2u;
}

/* zlib's send_all_trees(): a dynamic block's tree description, after its three header bits. */
HC_FN void hc_dfl_tree_header(HC_LOCAL hc_dfl_state* z, hc_dfl_hw* w) {
  const hc_i32 lcodes = z->l.max_code + 1, dcodes = z->d.max_code + 1;
  const hc_u32 blcodes = z->max_blindex + 1u;
  hc_u32 i;
  hc_dfl_hw_put(w, (hc_u32)(lcodes - 257), 5u);
  hc_dfl_hw_put(w, (hc_u32)(dcodes - 1), 5u);
  hc_dfl_hw_put(w, blcodes - 4u, 4u);
  for (i = 0; i < blcodes; ++i) hc_dfl_hw_put(w, z->bl.len[hc_dfl_bl_order(i)], 3u);
  hc_dfl_tree_runs(z, &z->l, w);
  hc_dfl_tree_runs(z, &z->d, w);
}

/* The code of symbol value v (a literal byte, or 256 + length - 3 for a match at distance 1:
 * its length code, extra bits and distance code together, at most 25 bits) in a block of type
 * 1 (fixed) or 2 (dynamic), as sent, into *code; returns its bits, 0 for a length code the
 * block does not use (past max_code its length is scan_tree's guard). */
HC_FN hc_u32 hc_dfl_symbol_code(const HC_LOCAL hc_dfl_state* z, hc_u32 type, hc_u32 v,
                                hc_u32* code) {
  const hc_u32 dcode = type == 1u ? hc_dfl_reverse(0u, 5u) : z->d.code[0];
  const hc_u32 dlen = type == 1u ? 5u : z->d.len[0];
  hc_u32 m, c, sym, extra, clen;
  if (v < 256u) {
    const hc_u32 len = type == 1u ? hc_dfl_fixed_len(v) : z->l.len[v];
    *code = type == 1u ? hc_dfl_fixed_code(v) : len ? z->l.code[v] : 0u;
    return len;
  }
  m = v - 256u;
  c = hc_dfl_length_code(m);
  sym = 257u + c;
  extra = hc_dfl_length_extra(c);
  clen = type == 1u ? hc_dfl_fixed_len(sym) : z->l.len[sym];
  if (clen == 0u || clen > HC_DFL_MAX_BITS) {
    *code = 0u;
    return 0u;
  }
  *code = (type == 1u ? hc_dfl_fixed_code(sym) : z->l.code[sym]) |
          ((m - hc_dfl_length_base(c)) << clen) | (dcode << (clen + extra));
  return clen + extra + dlen;
}

#endif /* HETCODEC_PORTABLE_PNG_DEFLATE_TREES_H */
