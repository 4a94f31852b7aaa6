// The standard Huffman tables of ITU-T T.81 Annex K.3, for files that use a table slot without
// defining it (Motion-JPEG), as libjpeg-turbo's jdhuff.c (std_huff_tables) treats them.
#ifndef HETCODEC_CORE_JPEG_STANDARD_TABLES_H
#define HETCODEC_CORE_JPEG_STANDARD_TABLES_H

#include "core/jpeg/parser.h"

namespace hetcodec::jpeg {

// Slot 0: luminance, slot 1: chrominance. Only slots 0 and 1 have standard tables.
const HuffmanTable& standard_huffman_table(bool ac, int slot);

}  // namespace hetcodec::jpeg

#endif  // HETCODEC_CORE_JPEG_STANDARD_TABLES_H
