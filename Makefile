# The two commands of the README's quick start. Each does its own set-up first.
.PHONY: demo test setup bench test-interop

setup:
	./scripts/setup.sh

demo: setup
	node bin/seed.js demo

test: setup
	npm test

bench:
	SEED_SETUP_TORCH=1 ./scripts/setup.sh
	npm run bench

# The Tinker client against SkyRL's real Tinker server on CPU (.ci/run runs it too; docs/SCALE-OUT.md).
test-interop:
	./scripts/test-interop.sh
