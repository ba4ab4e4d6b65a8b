"""Every error of the front end, with its exact message and location.

Each case is a description and the messages it is rejected with (after
``t.net:``); all errors of a description are reported at once, sorted by
position.
"""
from __future__ import annotations

import pytest

from netsrc import BASE as B, messages

CATALOGUE = {
    'syntax_token': (
        'layer x input 2\n',
        ["1:9: error: syntax error: unexpected 'input'; expected ':'"]),
    'syntax_char': (
        'layer x: input 2 @\n',
        ["1:18: error: syntax error: unexpected character '@'"]),
    'syntax_eof': (
        'layer x: input (2\n',
        ['1:17: error: syntax error: unexpected end of file']),
    'syntax_keyword': (
        'layer x: input 2\nconnect x -> layer\nnet net { }\n',
        ["1:7: error: input layer 'x' is not an input of net 'net'",
         "2:14: error: unknown layer 'layer'",
         "3:5: error: 'net' is a keyword and cannot name a net",
         "3:5: error: net 'net' has no input layer",
         "3:5: error: net 'net' has no output layer"]),
    'syntax_stops_file': (
        'layer x: input 2\nlayer h sigmoid 3\nlayer h: sigmoid 3\nlayer h: sigmoid 3\n',
        ["2:9: error: syntax error: unexpected 'sigmoid'; expected ':'"]),
    'keyword_layer': (
        B + 'layer net: sigmoid 2\n',
        ["7:7: error: 'net' is a keyword and cannot name a layer",
         "7:7: error: layer 'net' is not reached from an input (no path from an input layer leads to it)"]),
    'keyword_param': (
        'param train = 2\nlayer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["1:7: error: 'train' is a keyword and cannot name a parameter"]),
    'keyword_net': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet layer { input x  output y }\n',
        ["6:5: error: 'layer' is a keyword and cannot name a net"]),
    'dup_layer': (
        B + 'layer h: tanh 2\n',
        ["7:7: error: layer 'h' is already defined (at t.net:2:7)"]),
    'dup_connect': (
        B + 'connect x -> h bus\n',
        ["7:9: error: connect 'x->h' is already defined (at t.net:4:9)"]),
    'unknown_layer_connect': (
        B + 'connect x -> q\nconnect q -> y\n',
        ["7:14: error: unknown layer 'q'",
         "8:9: error: unknown layer 'q'"]),
    'unknown_layer_net': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y, z }\n',
        ["6:28: error: unknown layer 'z'"]),
    'param_dup': (
        'param a = 1\nparam a = 2\nlayer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["2:7: error: parameter 'a' is already defined (at t.net:1:7)"]),
    'param_unknown': (
        'param a = b + 1\nlayer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["1:11: error: unknown parameter 'b'"]),
    'param_before_def': (
        'layer x: input 2\nlayer h: sigmoid k bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\nparam k = 3\n',
        ["2:18: error: unknown parameter 'k'"]),
    'param_divzero': (
        'param a = 1 / 0\nparam b = 1 // 0\nparam c = 1 % 0\nlayer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ['1:11: error: division by zero',
         '2:11: error: division by zero',
         '3:11: error: division by zero']),
    'param_function': (
        'param a = sqrt(2)\nparam b = max()\nparam min = 3\nlayer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["1:11: error: unknown function 'sqrt' (expressions may use min and max)",
         '2:11: error: max() takes one or more numbers',
         "3:7: error: 'min' is a function and cannot be a parameter"]),
    'param_overflow': (
        'param a = 10.0 ** 400\nlayer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ['1:11: error: the value is out of range']),
    'size_fraction': (
        'layer x: input 2\nlayer h: sigmoid 7 / 2 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["2:18: error: the size of layer 'h' must be a whole number, got 3.5"]),
    'size_zero': (
        'layer x: input 2\nlayer h: sigmoid 2 - 2 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["2:18: error: the size of layer 'h' must be at least 1, got 0"]),
    'unknown_kind': (
        'layer x: input 2\nlayer h: sigmod 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["2:10: error: unknown layer kind 'sigmod' (expected input, binary, sigmoid, tanh, linear, softmax or threshold)"]),
    'unknown_option': (
        'layer x: input 2\nlayer h: sigmoid 3 bais\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["2:20: error: unknown layer option 'bais' (expected bias, partition, nodes, location or exclude)"]),
    'bias_twice': (
        'layer x: input 2\nlayer h: sigmoid 3 bias bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["2:25: error: 'bias' is given twice"]),
    'input_bias': (
        'layer x: input 2 bias\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["1:7: error: input layer 'x' cannot have a bias"]),
    'binary_bias': (
        'layer x: binary 2 bias\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["1:7: error: binary layer 'x' cannot have a bias"]),
    'softmax_one': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: softmax 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\ntrain { error cross_entropy }\n',
        ["3:18: error: softmax layer 'y' needs at least 2 units"]),
    'unknown_connect_kind': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y ful\nnet n { input x  output y }\n',
        ["5:16: error: unknown connect kind 'ful' (expected full, bus or sparse)"]),
    'into_input': (
        B + 'layer z: input 2\nconnect h -> z\nnet m { input z output y }\n',
        ["7:7: error: input layer 'z' is not an input of net 'n'",
         "7:7: error: input layer 'z' does not lead to an output",
         "8:14: error: connect 'h->z' goes into input layer 'z' (input layers take pattern values only)",
         "9:5: error: net 'm': input 'z' is not an input of the main net (a sub-net reads the main net's patterns)"]),
    'into_input2': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nconnect y -> x\nnet n { input x  output y }\n',
        ['4:9: error: the network has a cycle: x -> h -> y -> x',
         "6:9: error: output layer 'y' cannot be the source of a connect ('y->x')",
         "6:14: error: connect 'y->x' goes into input layer 'x' (input layers take pattern values only)"]),
    'from_output': (
        B + 'layer z: sigmoid 1\nconnect y -> z\n',
        ["7:7: error: layer 'z' does not lead to an output",
         "8:9: error: output layer 'y' cannot be the source of a connect ('y->z')"]),
    'binary_bus': (
        'layer b: binary 3\nlayer h: sigmoid 3\nlayer y: sigmoid 1\nconnect b -> h bus\nconnect h -> y\nnet n { input b output y }\n',
        ["4:16: error: a binary layer can only be the source of full connects; 'b->h' is bus"]),
    'threshold_sparse': (
        'layer x: input 3\nlayer t: threshold 3\nlayer y: sigmoid 1\nconnect x -> t\nconnect t -> y sparse [0 -> 0]\nnet n { input x output y }\n',
        ["5:16: error: a threshold layer can only be the source of full connects; 't->y' is sparse"]),
    'threshold_output': (
        'layer x: input 3\nlayer t: threshold 3\nconnect x -> t\nnet n { input x output t }\n',
        ["4:24: error: threshold layer 't' cannot be an output of net 'n': it is a hidden layer (0/1 units)"]),
    'binary_sparse': (
        'layer b: binary 3\nlayer h: sigmoid 3\nlayer y: sigmoid 1\nconnect b -> h sparse [0 -> 0]\nconnect h -> y\nnet n { input b output y }\n',
        ["4:16: error: a binary layer can only be the source of full connects; 'b->h' is sparse"]),
    'bus_sizes': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h bus\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:16: error: bus connect 'x->h' joins layers of different sizes ('x' has 2 units, 'h' has 3)"]),
    'full_with_pairs': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h full [0 -> 0]\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:16: error: a full connect takes no pair list or generator']),
    'bus_with_gen': (
        'layer x: input 3\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h bus local(1)\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:16: error: a bus connect takes no pair list or generator']),
    'sparse_no_spec': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:16: error: a sparse connect needs a pair list [s -> d, ...] or a generator: local(width, stride) or random(fan_in, seed)']),
    'sparse_empty': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse []\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:16: error: a sparse connect needs at least one pair']),
    'sparse_range': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse [0 -> 0, 2 -> 0, 1 -> 3, -1 -> 1]\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:32: error: sparse pair 2->0: source unit 2 is out of range ('x' has units 0..1)",
         "4:40: error: sparse pair 1->3: destination unit 3 is out of range ('h' has units 0..2)",
         "4:48: error: sparse pair -1->1: source unit -1 is out of range ('x' has units 0..1)"]),
    'sparse_dup': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse [0 -> 0, 1 -> 2,\n  0 -> 0]\nconnect h -> y\nnet n { input x  output y }\n',
        ['5:3: error: sparse pair 0->0 is given twice (first at t.net:4:24)']),
    'sparse_nonint': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse [0.5 -> 0]\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:24: error: a source unit must be a whole number, got 0.5']),
    'gen_unknown': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse conv(3)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:23: error: unknown sparse generator 'conv' (expected local or random)"]),
    'gen_badarg': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse local(width=1, strde=1)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:38: error: local() has no argument 'strde' (it takes width, stride)"]),
    'gen_missing': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse random(seed=1)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:23: error: random() needs argument 'fan_in'"]),
    'gen_toomany': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse local(1, 1, 1)\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:35: error: local() takes at most 2 arguments (width, stride)']),
    'gen_twice': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse local(1, width=1)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:32: error: argument 'width' of local() is given twice"]),
    'gen_twice2': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse local(width=1, width=2)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:38: error: argument 'width' of local() is given twice"]),
    'gen_value': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse local(width=0)\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:29: error: width of local() must be a whole number of at least 1, got 0']),
    'gen_value2': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse random(fan_in=1.5)\nconnect h -> y\nnet n { input x  output y }\n',
        ['4:30: error: fan_in of random() must be a whole number of at least 1, got 1.5']),
    'local_too_small': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse local(width=2, stride=1)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:23: error: local(width=2, stride=1) into 3 units needs 4 source units, 'x' has 2"]),
    'random_too_many': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse random(fan_in=3)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:23: error: random(fan_in=3) needs 3 source units, 'x' has 2"]),
    'no_net': (
        'layer x: input 2\n',
        ['1:1: error: no net block: name the input and output layers, e.g. net NAME { input x  output y }']),
    'two_nets': (
        B + 'net m { input x output y }\n',
        ["7:5: error: net 'm': layer 'y' is not reached from the net's inputs through its connects",
         "7:5: error: net 'm': layer 'x' does not lead to the net's outputs through its connects"]),
    'net_role': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  outputs y }\n',
        ["6:5: error: net 'n' has no output layer",
         "6:18: error: unknown entry 'outputs' in net 'n' (expected input, hidden or output)"]),
    'net_named_twice': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y, y }\n',
        ["6:28: error: layer 'y' is named twice in net 'n' (first at t.net:6:25)"]),
    'net_input_not_input': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x, h  output y }\n',
        ["6:18: error: net input 'h' is a sigmoid layer; inputs must be input or binary layers"]),
    'net_output_input': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n {  output y, x }\n',
        ["1:7: error: input layer 'x' is not an input of net 'n'",
         "4:9: error: output layer 'x' cannot be the source of a connect ('x->h')",
         "6:5: error: net 'n' has no input layer",
         "6:20: error: net output 'x' is an input layer"]),
    'input_not_in_net': (
        B + 'layer z: input 3\nconnect z -> h\n',
        ["7:7: error: input layer 'z' is not an input of net 'n'"]),
    'softmax_hidden': (
        'layer x: input 2\nlayer h: softmax 3\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\ntrain { error cross_entropy }\n',
        ["2:7: error: softmax layer 'h' must be an output of net 'n'"]),
    'hidden_incomplete': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  hidden h output y }\nlayer g: sigmoid 2\nconnect x -> g\nconnect g -> y\n',
        ["7:7: error: layer 'g' is not named in net 'n' (list it as hidden)"]),
    'hidden_wrong': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  hidden x\n  output y }\n',
        ["6:25: error: layer 'x' is named twice in net 'n' (first at t.net:6:15)"]),
    'no_inputs': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n {  output y }\n',
        ["1:7: error: input layer 'x' is not an input of net 'n'",
         "6:5: error: net 'n' has no input layer"]),
    'no_outputs': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x  }\n',
        ["6:5: error: net 'n' has no output layer"]),
    'cycle': (
        B + 'layer g: sigmoid 2\nconnect h -> g\nconnect g -> h\n',
        ['8:9: error: the network has a cycle: h -> g -> h']),
    'self_loop': (
        B + 'connect h -> h\n',
        ['7:9: error: the network has a cycle: h -> h']),
    'two_cycles': (
        'layer x: input 1\nlayer a: sigmoid 1\nlayer b: sigmoid 1\nlayer c: sigmoid 1\nlayer d: sigmoid 1\nlayer y: sigmoid 1\nconnect x -> a\nconnect a -> b\nconnect b -> a\nconnect a -> c\nconnect c -> d\nconnect d -> c\nconnect d -> y\nnet n { input x output y }\n',
        ['8:9: error: the network has a cycle: a -> b -> a',
         '11:9: error: the network has a cycle: c -> d -> c']),
    'unreached': (
        B + 'layer g: sigmoid 2\nconnect g -> y\n',
        ["7:7: error: layer 'g' is not reached from an input (no path from an input layer leads to it)"]),
    'dead_end': (
        B + 'layer g: sigmoid 2\nconnect h -> g\n',
        ["7:7: error: layer 'g' does not lead to an output"]),
    'input_unused': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h\nconnect h -> y\nnet n { input x, z  output y }\nlayer z: input 2\n',
        ["7:7: error: input layer 'z' does not lead to an output"]),
    'train_unknown': (
        B + 'train { epoch 3 }\n',
        ["7:9: error: unknown training setting 'epoch' (expected rate, epochs, momentum, error, seed, init_scale, shuffle, alternate, frames)"]),
    'train_twice': (
        B + 'train { epochs 3 }\ntrain { epochs 4 }\n',
        ["8:9: error: training setting 'epochs' is already set (at t.net:7:16)"]),
    'train_values': (
        B + 'train { epochs 0 seed -1 momentum 1 init_scale 0 shuffle maybe error l2 }\n',
        ['7:16: error: epochs must be a whole number of at least 1, got 0',
         '7:23: error: seed must be a whole number of at least 0, got -1',
         '7:35: error: momentum must be at least 0 and less than 1, got 1',
         '7:48: error: init_scale must be greater than 0, got 0',
         '7:58: error: shuffle must be true or false, not maybe',
         '7:70: error: error must be mse or cross_entropy, not l2']),
    'train_types': (
        B + 'train { epochs step(1) momentum mse error 3 shuffle 1 }\n',
        ['7:16: error: epochs must be a number, not step()',
         '7:33: error: momentum must be a number, not mse',
         '7:43: error: error must be mse or cross_entropy, not 3',
         '7:53: error: shuffle must be true or false, not 1']),
    'train_whole': (
        B + 'train { epochs 2.5 }\n',
        ['7:16: error: epochs must be a whole number of at least 1, got 2.5']),
    'rate_bad': (
        B + 'train { rate 0 }\n',
        ['7:14: error: the learning rate must be greater than 0, got 0']),
    'rate_unknown_word': (
        B + 'train { rate fast }\n',
        ["7:14: error: unknown parameter 'fast'"]),
    'rate_unknown_sched': (
        B + 'train { rate cosine(0.1) }\n',
        ["7:14: error: unknown learning-rate schedule 'cosine' (expected a number or constant, step, list, newbob)"]),
    'rate_step_bad': (
        B + 'train { rate step(rate=-1, factor=0.5, every=0) }\n',
        ['7:19: error: rate of step() must be greater than 0, got -1',
         '7:40: error: every of step() must be a whole number of at least 1, got 0']),
    'rate_list_bad': (
        B + 'train { rate list(0.1, -0.1) }\n',
        ['7:24: error: a learning rate cannot be negative, got -0.1']),
    'rate_list_kw': (
        B + 'train { rate list(rate=0.1) }\n',
        ['7:19: error: list() takes rates only, not rate=']),
    'rate_list_empty': (
        B + 'train { rate list() }\n',
        ['7:14: error: list() needs at least one rate']),
    'rate_newbob_missing': (
        B + 'train { rate newbob(start_below=0.1) }\n',
        ["7:14: error: newbob() needs argument 'rate'"]),
    'softmax_mse': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: softmax 2\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\ntrain { error mse }\n',
        ["7:15: error: softmax output 'y' needs error cross_entropy (error is set to mse)"]),
    'softmax_default_mse': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: softmax 2\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\n',
        ["3:7: error: softmax output 'y' needs error cross_entropy (error is by default mse)"]),
    'ce_tanh': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: tanh 1\nconnect x -> h\nconnect h -> y\nnet n { input x  output y }\ntrain { error cross_entropy }\n',
        ["7:15: error: error cross_entropy needs sigmoid or softmax outputs; output 'y' is tanh"]),
    'rate_arg_error': (
        B + 'train { rate step(rate=1/0, factor=0.5, every=1) }\n',
        ['7:24: error: division by zero']),
    'gen_arg_error': (
        'layer x: input 2\nlayer h: sigmoid 3 bias\nlayer y: sigmoid 1\nconnect x -> h sparse local(width=w)\nconnect h -> y\nnet n { input x  output y }\n',
        ["4:35: error: unknown parameter 'w'"]),
    'eval_in_train': (
        B + 'train { epochs q + 1 }\n',
        ["7:16: error: unknown parameter 'q'"]),
    'number_overflow': (
        B + 'train { rate 1e400  momentum 0.5 * 1e999 }\n',
        ['7:14: error: the number 1e400 is out of range',
         '7:36: error: the number 1e999 is out of range']),
    'integer_overflow': (
        'param a = ' + '9' * 400 + '\nparam b = 2 ** 64 ** 2 * 2\nparam c = 2 ** 1023 * 2\n' + B,
        ['1:11: error: the number 999999999999... is out of range',
         '2:11: error: the value is out of range',
         '3:11: error: the value is out of range']),
    'word_setting_not_a_param': (
        'param error = 1\nparam h = 2\n' + B + 'train { error mse  shuffle h }\n',
        ['9:28: error: shuffle must be true or false, not h']),
}


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_error(name):
    src, expected = CATALOGUE[name]
    assert [m[len("t.net:"):] for m in messages(src)] == expected
