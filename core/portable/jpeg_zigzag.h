/* The JPEG zigzag scan (ITU-T T.81 Figure 5): entry k is the natural (row-major) index inside an
 * 8x8 block of the k-th coefficient in zigzag order. A list, so that C++, CUDA and OpenCL C can
 * each declare their own array with their own address-space qualifier:
 *   static const int natural[64] = HC_JPEG_NATURAL_ORDER;   (C++)
 *   __constant int natural[64] = HC_JPEG_NATURAL_ORDER;     (OpenCL C) */
#ifndef HETCODEC_PORTABLE_JPEG_ZIGZAG_H
#define HETCODEC_PORTABLE_JPEG_ZIGZAG_H

#define HC_JPEG_NATURAL_ORDER                                                                     \
  {                                                                                               \
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27,   \
        20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, \
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63                            \
  }

#endif /* HETCODEC_PORTABLE_JPEG_ZIGZAG_H */
