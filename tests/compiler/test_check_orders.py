"""Forward and backward orders (CLONES' Net_order) derived from the graph."""
from __future__ import annotations

from netsrc import net
from rapsim.compiler.check import derive_orders


def test_skip_connection():
    n = net("""
        layer x: input 3
        layer h1: sigmoid 4
        layer h2: tanh 4
        layer y: sigmoid 2
        connect x -> h1
        connect h1 -> h2
        connect h2 -> y
        connect x -> y          # skips both hidden layers
        connect h1 -> y
        net n { input x output y }
    """)
    assert n.forward_order == ["x", "h1", "h2", "y"]
    assert n.backward_order == ["y", "h2", "h1", "x"]


def test_order_follows_topology_not_definition():
    n = net("""
        layer y: sigmoid 1
        layer h2: sigmoid 2
        layer h1: sigmoid 2
        layer x: input 2
        connect h2 -> y
        connect h1 -> h2
        connect x -> h1
        connect x -> h2
        net n { input x output y }
    """)
    assert n.forward_order == ["x", "h1", "h2", "y"]
    assert n.backward_order == ["y", "h2", "h1", "x"]


def test_order_is_stable_for_independent_layers():
    # two parallel branches: definition order decides between ready layers
    n = net("""
        layer a: input 2
        layer b: input 2
        layer p: sigmoid 2
        layer q: sigmoid 2
        layer r: sigmoid 2
        layer y: sigmoid 1
        connect b -> q
        connect a -> p
        connect p -> r
        connect q -> y
        connect r -> y
        connect a -> y
        net n { input a, b output y }
    """)
    assert n.forward_order == ["a", "b", "p", "q", "r", "y"]
    assert n.backward_order == list(reversed(n.forward_order))


def test_every_connect_goes_forward():
    n = net("""
        layer x: input 2
        layer a: sigmoid 2
        layer b: sigmoid 2
        layer c: sigmoid 2
        layer y: softmax 3
        connect x -> c
        connect c -> a
        connect a -> b
        connect x -> b
        connect b -> y
        connect c -> y
        net n { input x output y }
        train { error cross_entropy }
    """)
    pos = {name: i for i, name in enumerate(n.forward_order)}
    assert all(pos[c.src] < pos[c.dst] for c in n.connects)
    assert n.forward_order == ["x", "c", "a", "b", "y"]
    assert derive_orders(n) == (n.forward_order, n.backward_order)
