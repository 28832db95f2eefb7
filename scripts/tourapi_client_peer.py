#!/usr/bin/env python3
"""A third-party TourAPI client against `nearby serve`: PyPI's iflow-mcp-harimkang-mcp-korea-tourism-api
(module `mcp_tourism.api_client`, class `KoreaTourismApiClient`), its base URL pointed at the server.

    tourapi_client_peer.py PLAN.json

PLAN is a JSON object:
    "base": the TourAPI base URL to use instead of http://apis.data.go.kr/B551011
            (e.g. http://127.0.0.1:8080/B551011): set as the client's `BASE_URL`, nothing else of it
            is changed;
    "key": the service key the client sends;
    "services": optional, language code to service name entries added to the client's
            `LANGUAGE_SERVICE_MAP` (the client has none for Korean: "ko" falls back to its default,
            English; {"ko": "KorService2"} is how an app reaches the Korean service with it);
    "calls": a list of {"name", "language" (the client's constructor language), "method" (a method of
            the client), "args" (its keyword arguments)}, made in order, one client per language.

Prints one JSON object: {"calls": [{"name", "path" (the path the client asked), "ok": true, "result"
(what the method returned)} or {"name", "path", "ok": false, "error": {"type", "message", "status",
"body"}}]}. The client's retries are cut to one try, so a server error (5xx) fails at once with its
status and body rather than after the client's backoff; its rate limit is raised (the server has none).
Exits non-zero, with the reason, only when the client cannot be imported or the plan cannot be read.
"""

import asyncio
import json
import sys


async def run(plan):
    from tenacity import stop_after_attempt
    from mcp_tourism import api_client
    from mcp_tourism.api_client import KoreaTourismApiClient

    KoreaTourismApiClient.BASE_URL = plan["base"]
    KoreaTourismApiClient._make_request.retry.stop = stop_after_attempt(1)
    api_client.LANGUAGE_SERVICE_MAP.update(plan.get("services", {}))

    asked = []

    async def record(request):
        asked.append(request.url.path)

    shared = await KoreaTourismApiClient.get_shared_client()
    shared.event_hooks = {"request": [record], "response": []}

    clients = {}
    answers = []
    for call in plan["calls"]:
        language = call["language"]
        if language not in clients:
            clients[language] = KoreaTourismApiClient(
                api_key=plan["key"], language=language, rate_limit_calls=1000)
        asked.clear()
        answer = {"name": call["name"]}
        try:
            answer["result"] = await getattr(clients[language], call["method"])(**call["args"])
            answer["ok"] = True
        except Exception as error:  # every failure is reported, with the server's answer when there is one
            response = getattr(error, "response", None)
            answer["ok"] = False
            answer["error"] = {
                "type": type(error).__name__,
                "message": str(error),
                "status": response.status_code if response is not None else None,
                "body": response.text if response is not None else None,
            }
        answer["path"] = asked[-1] if asked else None
        answers.append(answer)
    await KoreaTourismApiClient.close_all_connections()
    return {"calls": answers}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tourapi_client_peer.py PLAN.json")
    with open(sys.argv[1], encoding="utf-8") as file:
        plan = json.load(file)
    print(json.dumps(asyncio.run(run(plan)), ensure_ascii=False))


if __name__ == "__main__":
    main()
