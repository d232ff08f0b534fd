# A small static image of Kura. Not built in CI (no container engine there).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# --build-arg TAGS=tikv links the TiKV backend (--tikv-pd).
ARG TAGS=""
RUN CGO_ENABLED=0 go build -trimpath -tags "$TAGS" -ldflags="-s -w" -o /kura ./cmd/kura

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /kura /kura
VOLUME /data
EXPOSE 8000
ENTRYPOINT ["/kura", "--listen", "0.0.0.0:8000", "--data-dir", "/data"]
