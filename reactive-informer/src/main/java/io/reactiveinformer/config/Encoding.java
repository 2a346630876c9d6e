package io.reactiveinformer.config;

/**
 * How the client asks the API server for the objects it reads (lists, gets, watches). Writes are JSON in
 * either case: patches are JSON by nature, and the server accepts JSON bodies for every kind.
 */
public enum Encoding {

    /**
     * kube-apiserver's protobuf ({@code application/vnd.kubernetes.protobuf}) for the built-in kinds the
     * client has decoders for and for metadata-only handles of any kind ({@code PartialObjectMetadata} is a
     * built-in type), JSON for everything else (custom resources, {@code DynamicObject}). The request
     * accepts both, as client-go's does, and the response's
     * {@code Content-Type} picks the decoder, so a server that cannot write protobuf (an aggregated API)
     * answers JSON at no extra cost. One that refuses the request (406, 415) or answers a type the client
     * cannot decode is asked again in JSON, once, and the client keeps to JSON for that resource from then
     * on, with a warning logged once. The default.
     */
    PROTOBUF,

    /** JSON only: the client never asks for protobuf. */
    JSON
}
