"""Kubeflow Pipelines compiling a chain of N trivial components: the peer that
`benchmarks/run.py` times side by side with `taskplan compile` (issue 5).

Each step is the same lightweight Python component (`x + 1`), fed the previous
step's output, so the pipeline is a chain of N tasks; the compiler writes the
pipeline spec YAML to OUT. Run it as a whole process with an interpreter that
has `kfp` installed (an optional extra: never a dependency of taskplan):

    python -m venv /tmp/kfpvenv && /tmp/kfpvenv/bin/pip install kfp
    /tmp/kfpvenv/bin/python benchmarks/kfp_chain.py 1000 -o /tmp/chain.yaml
"""

# No `from __future__ import annotations`: kfp reads the component's annotations as
# objects (a string "int" is taken for an artifact type).
import argparse


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=1000, help="steps in the chain")
    ap.add_argument("-o", "--out", default="kfp-chain.yaml", help="where the pipeline spec YAML goes")
    args = ap.parse_args(argv)

    from kfp import compiler, dsl

    @dsl.component(base_image="python:3.11")
    def step(x: int) -> int:
        return x + 1

    @dsl.pipeline(name="chain")
    def chain():
        task = step(x=0)
        for _ in range(args.n - 1):
            task = step(x=task.output)

    compiler.Compiler().compile(chain, args.out)


if __name__ == "__main__":
    main()
