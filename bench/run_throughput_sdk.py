#!/usr/bin/env python3
"""The peer for bench/run_throughput.sh: the same cases sent through the official OpenAI Python
SDK (AsyncOpenAI, at most CONCURRENCY requests in flight via an asyncio.Semaphore) to the mock.

  python run_throughput_sdk.py BASE_URL CASES_CSV CONCURRENCY

Prints JSON: calls, answered, seconds, calls_per_second.
"""

import asyncio
import csv
import json
import sys
import time

import openai


async def main(base, cases_path, concurrency):
    with open(cases_path, newline="") as f:
        prompts = [row["prompt"] for row in csv.DictReader(f)]
    client = openai.AsyncOpenAI(base_url=base, api_key="sk-bench-not-a-key", max_retries=0, timeout=30)
    gate = asyncio.Semaphore(concurrency)
    answered = 0

    async def one(prompt):
        nonlocal answered
        async with gate:
            r = await client.chat.completions.create(
                model="mock-a", messages=[{"role": "user", "content": prompt}], temperature=0, max_completion_tokens=5)
            if r.choices[0].message.content:
                answered += 1

    started = time.perf_counter()
    await asyncio.gather(*(one(p) for p in prompts))
    seconds = time.perf_counter() - started
    await client.close()
    print(json.dumps({"calls": len(prompts), "answered": answered, "seconds": round(seconds, 4),
                      "calls_per_second": round(len(prompts) / seconds, 2)}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
