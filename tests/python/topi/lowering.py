"""The kernel attrs the lowering builds, for tests that call kernels as the graph executor does."""


def lowering_attrs(call):
    """kernel_attrs as csrc/backend/group_lowering.cc builds them from a call's attrs (by reflection)."""
    from tvmlite.ir import attrs as ir_attrs

    cls = ir_attrs._class_for(call.attrs.type_key)
    out = {}
    for name, field in cls.__dict__.items():
        if not isinstance(field, ir_attrs._FIELD):
            continue
        value = getattr(call.attrs, name)
        if value is None:
            continue
        if isinstance(value, bool):
            value = int(value)
        elif not isinstance(value, (int, float, str)):
            value = [int(v) for v in value] if hasattr(value, "__len__") else str(value)
        out[name] = value
    out["epilogue"] = ""
    return out
