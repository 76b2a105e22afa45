/*!
 * \file tvmlite/topi/nn/winograd_tile.h
 * \brief When a 3x3 conv pays to run by Winograd (csrc/topi/nn/conv2d_winograd.cc, measured per ISA):
 *
 *   WinogradTile(c, o, oh, ow, stride)        the tile size m of F(m x m) for this output plane, or 0: the direct conv
 *   WinogradTilesOfAnyPlane(c, o, stride)     the tile sizes WinogradTile picks for some plane, largest first: what a
 *                                             conv whose plane is known only at run time needs transformed filters
 *                                             for (AlterOpLayout; topi.nn.conv2d_winograd_per_shape chooses per call)
 *
 * c and o are the channels the blocked conv sees (padded to whole blocks).
 */
#ifndef TVMLITE_TOPI_NN_WINOGRAD_TILE_H_
#define TVMLITE_TOPI_NN_WINOGRAD_TILE_H_

#include <cstdint>
#include <vector>

namespace tvmlite {
namespace topi {

int64_t WinogradTile(int64_t in_channels, int64_t out_channels, int64_t out_height, int64_t out_width, int64_t stride);
std::vector<int64_t> WinogradTilesOfAnyPlane(int64_t in_channels, int64_t out_channels, int64_t stride);

}  // namespace topi
}  // namespace tvmlite
#endif  // TVMLITE_TOPI_NN_WINOGRAD_TILE_H_
