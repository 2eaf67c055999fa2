/**
 * The C* cluster network layer of Mosberger, Turner and Peterson (TR 94-14): the service
 * ({@link io.nicbridge.protocols.cstar.CStarNetwork}) that the traditional and the careful protocol both provide.
 */
package io.nicbridge.protocols.cstar;
