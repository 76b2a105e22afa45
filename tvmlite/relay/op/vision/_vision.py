"""numpy references of the detection ops (vision.py), written from the ONNX specs of RoiAlign and
NonMaxSuppression (with the conventions of their reference implementation: RoiAlign's bilinear sampling treats
points up to one pixel outside the image as clamped and farther ones as 0; "max" pooling takes the largest
weighted corner of each sample; NMS keeps scores strictly above score_threshold, breaks score ties by box index
and suppresses an IoU strictly above iou_threshold)."""
import math

import numpy as np

from ..op import register_reference


def _bilinear_taps(coords, size):
    """For sample coordinates along one axis: (low index, high index, low weight, high weight, inside mask)."""
    inside = (coords >= -1.0) & (coords <= size)
    c = np.maximum(coords, 0.0)
    low = np.floor(c).astype(np.int64)
    at_end = low >= size - 1
    low = np.where(at_end, size - 1, low)
    high = np.where(at_end, size - 1, low + 1)
    c = np.where(at_end, low.astype(np.float64), c)
    frac = c - low
    return low, high, 1.0 - frac, frac, inside


def _roi_align(attrs, data, rois, batch_indices):
    n, channels, height, width = data.shape
    oh, ow = int(attrs.output_height), int(attrs.output_width)
    ratio = int(attrs.sampling_ratio)
    half_pixel = attrs.coordinate_transformation_mode == "half_pixel"
    offset = 0.5 if half_pixel else 0.0
    out = np.zeros((rois.shape[0], channels, oh, ow), dtype=np.float64)
    for r, (roi, b) in enumerate(zip(rois.astype(np.float64), batch_indices)):
        if not 0 <= b < n:
            raise IndexError(f"batch index {b} is out of range for {n} images")
        x1, y1, x2, y2 = roi * attrs.spatial_scale - offset
        roi_w, roi_h = x2 - x1, y2 - y1
        if not half_pixel:
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        bin_h, bin_w = roi_h / oh, roi_w / ow
        grid_h = ratio if ratio > 0 else int(math.ceil(roi_h / oh))
        grid_w = ratio if ratio > 0 else int(math.ceil(roi_w / ow))
        count = max(grid_h * grid_w, 1)
        # Sample coordinates: (oh, grid_h) rows and (ow, grid_w) columns.
        ys = y1 + np.arange(oh)[:, None] * bin_h + (np.arange(grid_h)[None, :] + 0.5) * bin_h / max(grid_h, 1)
        xs = x1 + np.arange(ow)[:, None] * bin_w + (np.arange(grid_w)[None, :] + 0.5) * bin_w / max(grid_w, 1)
        yl, yh, wyl, wyh, yin = _bilinear_taps(ys, height)
        xl, xh, wxl, wxh, xin = _bilinear_taps(xs, width)
        img = data[b].astype(np.float64)  # (C, H, W)
        # Every (ph, iy, pw, ix) sample: four weighted corners, shaped (C, oh, gh, ow, gw).
        inside = (yin[:, :, None, None] & xin[None, None, :, :])
        corners = []
        for yi, wy in ((yl, wyl), (yh, wyh)):
            for xi, wx in ((xl, wxl), (xh, wxh)):
                v = img[:, yi[:, :, None, None], xi[None, None, :, :]]
                w = np.where(inside, wy[:, :, None, None] * wx[None, None, :, :], 0.0)
                corners.append(w * v)
        if attrs.mode == "avg":
            total = sum(corners).sum(axis=(2, 4))
            out[r] = total / count
        else:
            best = np.maximum(np.maximum(corners[0], corners[1]), np.maximum(corners[2], corners[3]))
            out[r] = best.max(axis=(2, 4)) if grid_h and grid_w else 0.0
    return out.astype(data.dtype)


register_reference("vision.roi_align", _roi_align)


def _corners(boxes, center_point_box):
    """Boxes as (y_min, x_min, y_max, x_max)."""
    b = boxes.astype(np.float64)
    if center_point_box:
        xc, yc, w, h = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=-1)
    y1, x1, y2, x2 = b[..., 0], b[..., 1], b[..., 2], b[..., 3]
    return np.stack([np.minimum(y1, y2), np.minimum(x1, x2), np.maximum(y1, y2), np.maximum(x1, x2)], axis=-1)


def _suppresses(a, b, iou_threshold):
    """Whether boxes a and b (corner form) overlap with IoU strictly above the threshold."""
    ih = min(a[2], b[2]) - max(a[0], b[0])
    iw = min(a[3], b[3]) - max(a[1], b[1])
    if ih <= 0 or iw <= 0:
        return False
    inter = ih * iw
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    if area_a <= 0 or area_b <= 0:
        return False
    union = area_a + area_b - inter
    return union > 0 and inter / union > iou_threshold


def _non_max_suppression(attrs, boxes, scores, max_output, iou_threshold, score_threshold):
    max_output = int(np.asarray(max_output).reshape(-1)[0]) if np.size(max_output) else 0
    iou = float(np.asarray(iou_threshold).reshape(-1)[0]) if np.size(iou_threshold) else 0.0
    thr = float(np.asarray(score_threshold).reshape(-1)[0]) if np.size(score_threshold) else -math.inf
    if boxes.shape[0] != scores.shape[0] or boxes.shape[1] != scores.shape[2]:
        raise ValueError(f"boxes {boxes.shape} and scores {scores.shape} disagree")
    corners = _corners(boxes, attrs.center_point_box)
    selected = []
    if max_output > 0:
        for b in range(scores.shape[0]):
            for k in range(scores.shape[1]):
                s = scores[b, k].astype(np.float64)
                candidates = [i for i in np.argsort(-s, kind="stable") if s[i] > thr]
                kept = []
                for i in candidates:
                    if len(kept) >= max_output:
                        break
                    if not any(_suppresses(corners[b, i], corners[b, j], iou) for j in kept):
                        kept.append(i)
                selected.extend((b, k, i) for i in kept)
    return np.asarray(selected, dtype=np.int64).reshape(-1, 3)


register_reference("vision.non_max_suppression", _non_max_suppression)
