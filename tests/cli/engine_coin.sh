#!/usr/bin/env bash
# engine_coin.sh SPECVERIFY: the twins on torch.rand's float32 coin (issue
# 38). Both draw the coin at ref's address; at seed 7 a uniform batch's
# request 1303 of binary:p=0,q=1 (every draft of p = 0) gets a coin of
# exactly 0 within 3.4e6 draws: accept_zero_target ("<=") accepts that
# draft and emits a token of p = 0, ref_torch_coin ("<") rejects it.
sv=$1
. "$(dirname "$0")/cli_lib.sh"
run=(verify --case binary:p=0,q=1 --draws 3400000 --seed 7 --batches uniform --threads 2)
expect 1 "request 1303 of the batch (seed 7): position 1 emitted token 0, whose target probability is 0" \
  "${run[@]}" --sampler accept_zero_target
expect 0 "1 cases: 1 passed" "${run[@]}" --sampler ref_torch_coin
finish
