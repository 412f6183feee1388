"""`Brain` (sync) and `AsyncBrain` (async): identical methods over one shared core (`_base.BaseClient`), which decides
after every attempt (parse, wait and send again, or raise). Each class owns only its loop: send and sleep.
Resources shape requests and cannot fail on their own."""

from __future__ import annotations

import asyncio
import time
from types import TracebackType
from typing import Any, Mapping, Optional, Type, TypeVar, Union

import httpx
from pydantic import BaseModel

from ._base import BaseClient, Call, Wait
from ._constants import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT
from ._exceptions import BrainError
from ._models import HealthReport, RetrieveResult, StoreResult, WorkspaceStatus

ModelT = TypeVar("ModelT", bound=BaseModel)


class Brain(BaseClient):
    """The synchronous client. `with Brain() as brain: brain.memory.store("...")`."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        super().__init__(api_key, base_url, timeout, max_retries)
        self._http = httpx.Client(timeout=self.timeout, follow_redirects=False)
        self.memory = Memory(self)
        self.optimize = Optimize(self)

    def status(self) -> WorkspaceStatus:
        """Connection check and workspace identity (free: no usage event)."""
        return self._request(self.STATUS, WorkspaceStatus)

    def _request(self, call: Call, model: Type[ModelT]) -> ModelT:
        if self._http.is_closed:
            raise BrainError(f"{call.method} {call.path}: this Brain client is closed.", code="client_closed")
        ex = self.begin(call)
        while True:
            ex.attempt += 1
            try:
                response = self._http.request(ex.method, ex.url, headers=ex.headers, content=ex.content)
            except httpx.TransportError as error:
                outcome: Union[ModelT, Wait] = self.after_transport_error(ex, error)
            else:
                outcome = self.after_response(ex, response, model)
            if not isinstance(outcome, Wait):
                return outcome
            time.sleep(outcome.delay)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Brain:
        return self

    def __exit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()


class AsyncBrain(BaseClient):
    """The asynchronous client. `async with AsyncBrain() as brain: await brain.memory.store("...")`."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
    ) -> None:
        super().__init__(api_key, base_url, timeout, max_retries)
        self._http = httpx.AsyncClient(timeout=self.timeout, follow_redirects=False)
        self.memory = AsyncMemory(self)
        self.optimize = AsyncOptimize(self)

    async def status(self) -> WorkspaceStatus:
        """Connection check and workspace identity (free: no usage event)."""
        return await self._request(self.STATUS, WorkspaceStatus)

    async def _request(self, call: Call, model: Type[ModelT]) -> ModelT:
        if self._http.is_closed:
            raise BrainError(f"{call.method} {call.path}: this AsyncBrain client is closed.", code="client_closed")
        ex = self.begin(call)
        while True:
            ex.attempt += 1
            try:
                response = await self._http.request(ex.method, ex.url, headers=ex.headers, content=ex.content)
            except httpx.TransportError as error:
                outcome: Union[ModelT, Wait] = self.after_transport_error(ex, error)
            else:
                outcome = self.after_response(ex, response, model)
            if not isinstance(outcome, Wait):
                return outcome
            await asyncio.sleep(outcome.delay)

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncBrain:
        return self

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        await self.close()


class Memory:
    def __init__(self, client: Brain) -> None:
        self._client = client

    def store(self, text: str, meta: Optional[Mapping[str, Any]] = None) -> StoreResult:
        """Save a memory through the pipeline (a billable write). Retries carry one Idempotency-Key."""
        return self._client._request(BaseClient.store_call(text, meta), StoreResult)

    def retrieve(self, query: str, top_k: Optional[int] = None, min_score: Optional[float] = None) -> RetrieveResult:
        """Memories ranked by hybrid score."""
        return self._client._request(BaseClient.retrieve_call(query, top_k, min_score), RetrieveResult)


class Optimize:
    def __init__(self, client: Brain) -> None:
        self._client = client

    def health(self) -> HealthReport:
        """The workspace's memory-health diagnostic (free: no usage event)."""
        return self._client._request(BaseClient.HEALTH, HealthReport)


class AsyncMemory:
    def __init__(self, client: AsyncBrain) -> None:
        self._client = client

    async def store(self, text: str, meta: Optional[Mapping[str, Any]] = None) -> StoreResult:
        """Save a memory through the pipeline (a billable write). Retries carry one Idempotency-Key."""
        return await self._client._request(BaseClient.store_call(text, meta), StoreResult)

    async def retrieve(
        self, query: str, top_k: Optional[int] = None, min_score: Optional[float] = None
    ) -> RetrieveResult:
        """Memories ranked by hybrid score."""
        return await self._client._request(BaseClient.retrieve_call(query, top_k, min_score), RetrieveResult)


class AsyncOptimize:
    def __init__(self, client: AsyncBrain) -> None:
        self._client = client

    async def health(self) -> HealthReport:
        """The workspace's memory-health diagnostic (free: no usage event)."""
        return await self._client._request(BaseClient.HEALTH, HealthReport)
