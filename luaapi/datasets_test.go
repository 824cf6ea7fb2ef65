package luaapi

// The tests read real files through datasets' readers (svmlight, leaf,
// sparse_federated); luaapi itself imports no component (a program
// registers them, as cmd/fedlab does through registry/all).
import _ "github.com/fedlab/fedlab/datasets"
