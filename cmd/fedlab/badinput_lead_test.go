package main

// Cases added with issue 18: free text that cannot be stored losslessly.
func init() {
	badInputs = append(badInputs,
		badInput{name: "label invalid UTF-8", script: prelude + "fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{ label = \"A\\255\" }, fedlab.algo.fedavg{ label = \"A\\254\" } }, rounds = 2, local_steps = 1 }\n",
			code: 1, first: `s\.lua:3: algorithm "fedavg": label "A\\xff" is not valid UTF-8 \(byte 0xff at offset 1\)`},
	)
}
