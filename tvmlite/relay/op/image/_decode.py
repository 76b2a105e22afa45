"""numpy reference of image.decode (ONNX ImageDecoder) for the formats decodable without an image codec library:
PNG (8-bit, non-interlaced; grey, grey+alpha, RGB, RGBA, palette), BMP (uncompressed 24/32-bit), binary PNM
(P5 greyscale, P6 colour) and baseline uncompressed TIFF (8-bit grey/RGB/RGBA, interleaved strips). JPEG,
JPEG 2000, WebP and compressed TIFF need a codec tvmlite does not ship: they raise OpNotImplemented. A stream that
is not a decodable image decodes to an empty (0, 0, C) image, as the spec says.
"""
import struct
import zlib

import numpy as np

from ....error import OpNotImplemented
from ..op import register_reference


class _Corrupt(Exception):
    pass


def _png(b):
    pos, chunks = 8, []
    while pos + 8 <= len(b):
        length, kind = struct.unpack(">I4s", b[pos:pos + 8])
        chunks.append((kind, b[pos + 8:pos + 8 + length]))
        pos += 12 + length
        if kind == b"IEND":
            break
    header = dict(chunks).get(b"IHDR")
    if header is None or len(header) != 13:
        raise _Corrupt("no IHDR")
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or interlace:
        raise OpNotImplemented(f"image.decode: PNG of bit depth {depth}{' interlaced' if interlace else ''}")
    planes = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(color)
    if planes is None:
        raise _Corrupt(f"color type {color}")
    try:
        raw = zlib.decompress(b"".join(d for k, d in chunks if k == b"IDAT"))
    except zlib.error as err:
        raise _Corrupt(str(err))
    stride = width * planes
    if len(raw) < height * (stride + 1):
        raise _Corrupt("short image data")
    out = np.zeros((height, stride), dtype=np.int64)
    prev = np.zeros(stride, dtype=np.int64)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        if ftype == 0:
            cur = line
        elif ftype == 2:
            cur = (line + prev) & 0xFF
        else:  # Sub, Average, Paeth depend on the reconstructed bytes to the left: a scan
            cur = np.zeros(stride, dtype=np.int64)
            for i in range(stride):
                left = cur[i - planes] if i >= planes else 0
                up = prev[i]
                if ftype == 1:
                    pred = left
                elif ftype == 3:
                    pred = (left + up) >> 1
                elif ftype == 4:
                    ul = prev[i - planes] if i >= planes else 0
                    p = left + up - ul
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                    pred = left if pa <= pb and pa <= pc else (up if pb <= pc else ul)
                else:
                    raise _Corrupt(f"filter {ftype}")
                cur[i] = (line[i] + pred) & 0xFF
        out[y] = cur
        prev = cur
    img = out.reshape(height, width, planes).astype(np.uint8)
    if color == 3:
        palette = dict(chunks).get(b"PLTE")
        if palette is None:
            raise _Corrupt("no palette")
        table = np.frombuffer(palette, np.uint8).reshape(-1, 3)
        if img.max(initial=0) >= len(table):
            raise _Corrupt("palette index out of range")
        return table[img[..., 0]]
    if color in (0, 4):
        return np.repeat(img[..., :1], 3, axis=2)
    return img[..., :3]


def _bmp(b):
    if len(b) < 54:
        raise _Corrupt("short header")
    offset = struct.unpack("<I", b[10:14])[0]
    width, height, _, bits, compression = struct.unpack("<iiHHI", b[18:34])
    if bits not in (24, 32) or compression not in (0, 3):
        raise OpNotImplemented(f"image.decode: BMP of {bits} bits per pixel (compression {compression})")
    planes = bits // 8
    stride = (width * planes + 3) // 4 * 4
    rows = abs(height)
    if width <= 0 or offset + rows * stride > len(b):
        raise _Corrupt("short pixel data")
    data = np.frombuffer(b, np.uint8, rows * stride, offset).reshape(rows, stride)[:, :width * planes]
    img = data.reshape(rows, width, planes)[..., 2::-1]  # BGR(A) -> RGB
    return img[::-1] if height > 0 else img  # positive height: bottom-up rows


def _pnm(b):
    fields, pos = [], 2
    while len(fields) < 3:
        while pos < len(b) and chr(b[pos]).isspace():
            pos += 1
        if pos < len(b) and b[pos:pos + 1] == b"#":
            while pos < len(b) and b[pos:pos + 1] != b"\n":
                pos += 1
            continue
        start = pos
        while pos < len(b) and not chr(b[pos]).isspace():
            pos += 1
        if start == pos:
            raise _Corrupt("short header")
        fields.append(int(b[start:pos]))
    width, height, maxval = fields
    pos += 1
    if maxval > 255:
        raise OpNotImplemented("image.decode: 16-bit PNM")
    planes = 3 if b[:2] == b"P6" else 1
    if len(b) < pos + width * height * planes:
        raise _Corrupt("short pixel data")
    img = np.frombuffer(b, np.uint8, width * height * planes, pos).reshape(height, width, planes)
    return img if planes == 3 else np.repeat(img, 3, axis=2)


def _tiff(b):
    end = "<" if b[:2] == b"II" else ">"
    (ifd,) = struct.unpack(end + "I", b[4:8])
    (count,) = struct.unpack(end + "H", b[ifd:ifd + 2])
    sizes = {1: 1, 3: 2, 4: 4}  # BYTE, SHORT, LONG
    tags = {}
    for i in range(count):
        tag, kind, n = struct.unpack(end + "HHI", b[ifd + 2 + 12 * i: ifd + 10 + 12 * i])
        if kind not in sizes:
            continue
        fmt = {1: "B", 3: "H", 4: "I"}[kind]
        where = ifd + 10 + 12 * i
        if n * sizes[kind] > 4:
            (where,) = struct.unpack(end + "I", b[where:where + 4])
        tags[tag] = list(struct.unpack(end + fmt * n, b[where:where + n * sizes[kind]]))
    width, height = tags[256][0], tags[257][0]
    bits = tags.get(258, [1])
    planes = tags.get(277, [1])[0]
    compression, photometric = tags.get(259, [1])[0], tags.get(262, [1])[0]
    if compression != 1 or any(v != 8 for v in bits) or tags.get(284, [1])[0] != 1:
        raise OpNotImplemented(f"image.decode: TIFF with compression {compression}, bits {bits} (only "
                               f"uncompressed interleaved 8-bit images decode without a codec)")
    data = b"".join(b[o:o + c] for o, c in zip(tags[273], tags[279]))
    if len(data) < width * height * planes:
        raise _Corrupt("short pixel data")
    img = np.frombuffer(data, np.uint8, width * height * planes).reshape(height, width, planes)
    if photometric == 2 and planes >= 3:
        return img[..., :3]
    if photometric in (0, 1):
        grey = img[..., :1] if photometric == 1 else 255 - img[..., :1]
        return np.repeat(grey, 3, axis=2)
    raise OpNotImplemented(f"image.decode: TIFF photometric interpretation {photometric}")


_CODEC_ONLY = [(b"\xff\xd8", "JPEG"), (b"\x00\x00\x00\x0cjP  ", "JPEG 2000"), (b"\xff\x4f\xff\x51", "JPEG 2000")]


def _decode(attrs, encoded):
    b = np.ascontiguousarray(encoded, dtype=np.uint8).tobytes()
    channels = 1 if attrs.pixel_format == "Grayscale" else 3
    for magic, name in _CODEC_ONLY:
        if b.startswith(magic):
            raise OpNotImplemented(f"image.decode: {name} needs an image codec tvmlite does not have")
    if b[:4] == b"RIFF" and b[8:12] == b"WEBP":
        raise OpNotImplemented("image.decode: WebP needs an image codec tvmlite does not have")
    try:
        if b.startswith(b"\x89PNG\r\n\x1a\n"):
            rgb = _png(b)
        elif b.startswith(b"BM"):
            rgb = _bmp(b)
        elif b[:2] in (b"P5", b"P6"):
            rgb = _pnm(b)
        elif b[:4] in (b"II*\x00", b"MM\x00*"):
            rgb = _tiff(b)
        else:
            raise _Corrupt("unknown format")
    except (_Corrupt, struct.error, ValueError, KeyError, IndexError):
        return np.zeros((0, 0, channels), dtype=np.uint8)
    if attrs.pixel_format == "BGR":
        return np.ascontiguousarray(rgb[..., ::-1])
    if attrs.pixel_format == "Grayscale":  # ITU-R 601-2 luma, rounded
        r, g, bl = (rgb[..., i].astype(np.int64) for i in range(3))
        return ((r * 19595 + g * 38470 + bl * 7471 + 0x8000) >> 16).astype(np.uint8)[..., None]
    return np.ascontiguousarray(rgb)


register_reference("image.decode", _decode)
