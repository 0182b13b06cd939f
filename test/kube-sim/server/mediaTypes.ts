// Accept-header parsing shared by the negotiations kubectl relies on (aggregated discovery, Tables).

/** The parameters (g, v, as, …) of each media type in an Accept header, in the client's order. */
export function acceptedMediaTypeParams(accept: string | undefined): Array<Map<string, string>> {
  return (accept ?? '').split(',').map(
    (mediaType) =>
      new Map(
        mediaType
          .split(';')
          .slice(1)
          .map((param) => param.trim().split('=') as [string, string]),
      ),
  );
}
