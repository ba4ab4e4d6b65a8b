"""Parameter sharing (SINGA's ``share_from``): a connect that uses another
connect's weight matrix, as it is or transposed (docs/network-language.md,
"Parameter sharing").

    connect x -> h
    connect h -> y share_from x -> h transpose     # tied-weight auto-encoder

There is one copy of a shared matrix, kept under its owner's name (the
connect that does not share: ``Connect.key``); initial weights, weight and
checkpoint files hold it once.  In a training pattern every connect that
uses it computes its change with the weights as they were before the
pattern; the changes are applied after the whole backward pass, in the
connects' definition order (:func:`apply_order`), the first with momentum
``M = alpha M + step; W += M`` and each further one ``M += step; W +=
step`` -- so ``M = alpha M + the sum of the changes; W += M``.

What the back end maps: full connects, under the rows mapping, with one
net (the refusals name the connect and the place of its ``share_from``).
"""
from __future__ import annotations

from .ir import BINARY_KINDS, Connect, Layer


def resolve(decls, connects: list[Connect], layers: dict[str, Layer], errors: list,
            several_nets: bool) -> None:
    """Fill ``share``/``transpose`` of the connects from their declarations
    (``ConnectDecl.share``), appending (loc, message) for what is wrong: an
    unknown owner, itself, an owner that shares in turn, a connect that is
    not full, a binary or threshold source, shapes that do not match, a
    word other than ``transpose``, several nets."""
    by_name = {c.name: c for c in connects}
    declared = {f"{d.src.text}->{d.dst.text}": d for d in decls}
    for c in connects:
        d = declared.get(c.name)
        if d is None or d.share is None:
            continue
        s_src, s_dst, word, loc = d.share
        owner = f"{s_src.text}->{s_dst.text}"
        c.share_loc = loc
        if word is not None and word.text != "transpose":
            errors.append((word.loc, f"connect {c.name}: expected 'transpose' or nothing after "
                                     f"share_from {owner}, not {word.text!r}"))
            continue
        transpose = word is not None
        if owner == c.name:
            errors.append((loc, f"connect {c.name} cannot share its own weights"))
            continue
        o = by_name.get(owner)
        if o is None:
            errors.append((s_src.loc, f"connect {c.name}: share_from {owner}: there is no such "
                                      f"connect"))
            continue
        od = declared.get(owner)
        if od is not None and od.share is not None:
            errors.append((loc, f"connect {c.name}: share_from {owner}, which shares the weights "
                                f"of {od.share[0].text}->{od.share[1].text} itself; share from "
                                f"that connect directly"))
            continue
        bad = next((x for x in (c, o) if x.kind != "full"), None)
        if bad is not None:
            errors.append((loc, f"connect {c.name}: share_from {owner}: {bad.name} is a "
                                f"{bad.kind} connect; weights are shared between full "
                                f"connects only"))
            continue
        binary = next((x for x in (c, o) if x.src in layers and layers[x.src].kind
                       in BINARY_KINDS), None)
        if binary is not None:
            errors.append((loc, f"connect {c.name}: share_from {owner}: {binary.name} comes "
                                f"from {layers[binary.src].kind} layer {binary.src!r}, whose "
                                f"weights are stored column by column; they cannot be shared"))
            continue
        if several_nets:
            errors.append((loc, f"connect {c.name}: share_from {owner}: parameter sharing is "
                                f"not supported with several nets"))
            continue
        if any(n not in layers or layers[n].size is None for n in (c.src, c.dst, o.src, o.dst)):
            continue                                    # reported already
        want = ((layers[o.src].size, layers[o.dst].size) if transpose
                else (layers[o.dst].size, layers[o.src].size))
        have = (layers[c.dst].size, layers[c.src].size)
        if have != want:
            errors.append((loc, f"connect {c.name} ({have[0]} x {have[1]} weights) cannot use "
                                f"the {layers[o.dst].size} x {layers[o.src].size} weights of "
                                f"{owner}{' transposed' if transpose else ''}: it needs "
                                f"{want[0]} x {want[1]}"))
            continue
        c.share, c.transpose = owner, transpose


def apply_order(connects: list[Connect]) -> dict[str, list[Connect]]:
    """The connects of every shared matrix (owner and sharers), in
    definition order: the order their changes are applied in.  Matrices
    used by one connect only are left out."""
    groups: dict[str, list[Connect]] = {}
    for c in connects:
        groups.setdefault(c.key, []).append(c)
    return {k: v for k, v in groups.items() if len(v) > 1}


def refuse(network, mapping_name: str) -> None:
    """Parameter sharing maps under the rows mapping only: raise a
    MappingError naming the first sharing connect and the mapping."""
    from .mapping import MappingError
    for c in network.connects:
        if c.share is not None:
            raise MappingError(f"connect {c.name} shares the weights of {c.share} "
                               f"(share_from): parameter sharing is supported under the rows "
                               f"mapping only, not the {mapping_name} mapping", c.share_loc)
