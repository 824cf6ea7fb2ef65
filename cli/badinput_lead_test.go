package cli

// Cases added with issue 18: free text that cannot be stored losslessly.
func init() {
	badInputs = append(badInputs,
		badInput{name: "label invalid UTF-8", script: prelude + "fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{ label = \"A\\255\" }, fedlab.algo.fedavg{ label = \"A\\254\" } }, rounds = 2, local_steps = 1 }\n",
			code: 1, first: `s\.lua:3: algorithm "fedavg": label "A\\xff" is not valid UTF-8 \(byte 0xff at offset 1\)`},
	)
}

// Cases of issue 19 (round two): silent acceptances and internal errors.
func init() {
	const stage = `local st = { algo = fedlab.algo.cfedda{ L = 1 }, lambda = 0.1, rounds = 2 }` + "\n"
	badInputs = append(badInputs,
		badInput{name: "stages nil", script: prelude + stage + "fedlab.stages{ problem = p, local_steps = 1, st, nil, st }\n",
			code: 1, first: `s\.lua:4: fedlab\.stages: stage 2 is missing \(nil, or a hole in the list\)`},
		badInput{name: "stages hole", script: prelude + stage + "fedlab.stages{ problem = p, local_steps = 1, [1] = st, [5] = st }\n",
			code: 1, first: `s\.lua:4: fedlab\.stages: stage 2 is missing`},
		badInput{name: "stages keep 2^40", script: prelude + stage + "fedlab.stages{ problem = p, local_steps = 1, restart = \"top\", keep = 2^40, st, { lambda = 0.05, rounds = 2 } }\n",
			code: 1, first: `s\.lua:4: fedlab\.stages: keep = 1099511627776 is above the dimension d = 9 of the model \(valid: 0 ≤ keep ≤ 9\)`},
		badInput{name: "clip math.huge", script: prelude + compare(", privacy = fedlab.privacy.gaussian{ clip = math.huge, noise = 1 }"),
			code: 1, first: `s\.lua:3: fedlab\.compare: privacy "gaussian": clip = 1\.7976931348623157e\+308 .* overflows`},
		badInput{name: "noise 1e300", script: prelude + compare(", privacy = fedlab.privacy.gaussian{ clip = 1, noise = 1e300 }"),
			code: 1, first: `s\.lua:3: fedlab\.compare: privacy "gaussian": .* overflows`},
		badInput{name: "local_noise math.huge", script: prelude + compare(", privacy = fedlab.privacy.gaussian{ clip = 1, noise = 1, local_noise = math.huge }"),
			code: 1, first: `s\.lua:3: fedlab\.compare: privacy "gaussian": .* overflows`},
		badInput{name: "eta_c 1/0", script: prelude + "fedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{ eta_c = 1/0 }, rounds = 2, local_steps = 1 }\n",
			code: 1, first: `s\.lua:3: algorithm "fedavg": parameter "eta_c" = \+Inf: want a finite number \(range: >= 0\)`},
		badInput{name: "test_accuracy on regression", script: prelude + compare(`, metrics = { "test_accuracy" }`),
			code: 1, first: `s\.lua:3: fedlab\.compare: metric "test_accuracy" needs a classification loss`},
		badInput{name: "info 1e6 nodes", script: "print(fedlab.info(fedlab.topology.ring{}, 1e6))\n",
			code: 1, first: `s\.lua:1: fedlab\.info\(ring, 1000000\): at most 2000 nodes`},
	)
}

// Cases of issue 19: data files read by their own grammar.
func init() {
	badInputs = append(badInputs,
		badInput{name: "svmlight 1_000", script: svmScript(""), files: map[string]string{"d.svm": "1 1:1_000\n-1 2:1\n"},
			code: 1, first: `s\.lua:1: dataset "svmlight": .*d\.svm:1: bad feature "1:1_000": value: invalid syntax`},
		badInput{name: "svmlight hex label", script: svmScript(""), files: map[string]string{"d.svm": "0x1 1:1\n-1 2:1\n"},
			code: 1, first: `s\.lua:1: dataset "svmlight": .*d\.svm:1: bad label "0x1"`},
		badInput{name: "svmlight CR-only", script: svmScript(""), files: map[string]string{"d.svm": "1 1:0.5\r-1 2:0.3\r"},
			code: 1, first: `s\.lua:1: dataset "svmlight": .*d\.svm:1: the line holds a carriage return at byte 8: CR-only line endings`},
		badInput{name: "csv 1_0", script: csvScript(""), files: map[string]string{"d.csv": "x1,label\n1_0,0\n2,1\n"},
			code: 1, first: `s\.lua:1: dataset "csv": .*d\.csv:2: column "x1": bad value "1_0": invalid syntax`},
	)
}

// Cases of issue 19: sizes bounded before the work they would start.
func init() {
	badInputs = append(badInputs,
		badInput{name: "grid 1000 x 1000", script: prelude + "local a = {} for i = 1, 1000 do a[i] = i * 1e-6 end\n" +
			"fedlab.sweep{ problem = p, algorithms = { " + algo + " }, grid = { eta_c = a, eta_s = a }, rounds = 2, local_steps = 1, select = { metric = \"objective\", mode = \"min\" } }\n",
			code: 1, first: `s\.lua:4: fedlab\.sweep: key "grid": the grid has more than 100000 configurations`},
		badInput{name: "mlp 100000 layers", script: dataLine + "local h = {} for i = 1, 100000 do h[i] = 2 end\nfedlab.problem{ data = data, loss = fedlab.loss.mlp{ hidden = h } }\n",
			code: 1, first: `s\.lua:3: fedlab\.problem: loss "mlp": parameter "hidden": 100000 hidden layers, at most 1000`},
	)
}

// A ceiling below what fedlab itself holds.
func init() {
	badInputs = append(badInputs, badInput{name: "max-memory 1KB", script: "print(1)\n", args: []string{"--max-memory", "1KB"}, code: 2,
		first: `--max-memory 1KB: want at least 8\.0 MiB`})
}

// The cnn loss on sparse data is refused up front, like the MLP.
func init() {
	badInputs = append(badInputs, badInput{name: "cnn on sparse data",
		script: "local d = fedlab.data.svmlight{ path = \"d.svm\", clients = 1, features = 784, classes = 2 }\n" +
			"fedlab.problem{ data = d, loss = fedlab.loss.cnn{} }\n",
		files: map[string]string{"d.svm": "1 1:0.5 784:1\n0 2:0.3\n"},
		code:  1, first: `s\.lua:2: fedlab\.problem: loss "cnn" needs dense data, but dataset ".*d\.svm" is stored sparse`})
}
